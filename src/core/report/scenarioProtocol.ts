/**
 * Messages between the extension and the scenario panel's page (`media/scenario/scenario.ts`).
 * The page says `ready` once its script runs; the extension answers with the view model. Both
 * sides check what they receive: a webview message is untrusted input.
 */
import { isRecord } from '../util/isRecord';
import type { ScenarioViewModel } from './scenarioView';

/** Page → extension: the script is loaded and listening. */
export interface ScenarioReady {
  type: 'ready';
}

/** Page → extension: show the previous or next scenario in the same panel. */
export interface ScenarioNavigate {
  type: 'navigate';
  to: 'previous' | 'next';
}

/** Page → extension: open the record file at a call (null: at the record's top). */
export interface ScenarioOpenJson {
  type: 'openJson';
  call: number | null;
}

/** Page → extension: what the page drew, read back from its DOM (tests and the log use it). */
export interface ScenarioRendered {
  type: 'rendered';
  id: string;
  /** The heading's text as the browser shows it. */
  title: string;
  /** Elements in the drawn content that data must never create. */
  images: number;
  scripts: number;
  /** Calls drawn with their arguments and outputs side by side. */
  callPairs: number;
}

/** Extension → page: the scenario to draw. */
export interface ScenarioMessage {
  type: 'scenario';
  model: ScenarioViewModel;
}

/** What the page keeps with `setState`, handed back to the serializer after a reload. */
export interface ScenarioViewState {
  harnessDir: string;
  id: string;
}

/** Every message the page sends. */
export type ScenarioToExtension = ScenarioReady | ScenarioNavigate | ScenarioOpenJson | ScenarioRendered;

/** A page message, checked. */
export function parseScenarioMessage(v: unknown): ScenarioToExtension | undefined {
  if (!isRecord(v)) return undefined;
  switch (v.type) {
    case 'ready':
      return { type: 'ready' };
    case 'navigate':
      return v.to === 'previous' || v.to === 'next' ? { type: 'navigate', to: v.to } : undefined;
    case 'openJson':
      return v.call === null || (typeof v.call === 'number' && Number.isInteger(v.call) && v.call >= 0) ? { type: 'openJson', call: v.call } : undefined;
    case 'rendered': {
      const { id, title, images, scripts, callPairs } = v;
      if (typeof id !== 'string' || typeof title !== 'string' || typeof images !== 'number' || typeof scripts !== 'number' || typeof callPairs !== 'number')
        return undefined;
      return { type: 'rendered', id, title, images, scripts, callPairs };
    }
    default:
      return undefined;
  }
}

/** A restored state, checked (it comes back from the webview). */
export function isScenarioViewState(v: unknown): v is ScenarioViewState {
  return isRecord(v) && typeof v.harnessDir === 'string' && typeof v.id === 'string';
}

/** A scenario message with the parts the page reads first (the extension made it, but check). */
export function isScenarioMessage(v: unknown): v is ScenarioMessage {
  if (!isRecord(v) || v.type !== 'scenario' || !isRecord(v.model)) return false;
  const m = v.model;
  return typeof m.id === 'string' && typeof m.title === 'string' && Array.isArray(m.calls) && Array.isArray(m.turns) && Array.isArray(m.judgments);
}
