/**
 * Messages between the extension and the report webview. The page asks for its data once it
 * has loaded (`ready`); the extension answers with the model. Both sides check what they get:
 * a webview message is untrusted input.
 */
import type { ReportModel } from './schema';
import { isRecord } from '../util/isRecord';

/** Webview → extension: the page script is loaded and listening. */
export interface ReadyMessage {
  type: 'ready';
}

/** Extension → webview: the report to draw. */
export interface ReportMessage {
  type: 'report';
  model: ReportModel;
  /** The harness folders it was built from; the page keeps them as its state so VS Code can restore the panel after a reload. */
  sources?: string[];
}

/** What the page keeps with `setState` (returned to the extension's serializer on restore). */
export interface ReportViewState {
  sources: string[];
}

/** A restored state, checked (it comes back from the webview). */
export function isReportViewState(v: unknown): v is ReportViewState {
  return isRecord(v) && Array.isArray(v.sources) && v.sources.every((s) => typeof s === 'string');
}

/** Every message the page sends. */
export type ToExtension = ReadyMessage;
/** Every message the extension sends. */
export type ToWebview = ReportMessage;

/** The page's handshake. */
export function isReadyMessage(v: unknown): v is ReadyMessage {
  return isRecord(v) && v.type === 'ready';
}

/** A report message whose model has the parts the page reads first (the extension made it, but check). */
export function isReportMessage(v: unknown): v is ReportMessage {
  if (!isRecord(v) || v.type !== 'report' || !isRecord(v.model)) return false;
  const m = v.model;
  return Array.isArray(m.structure) && Array.isArray(m.judges) && Array.isArray(m.agreement) && Array.isArray(m.warnings) && isRecord(m.settings);
}
