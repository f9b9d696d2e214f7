/**
 * Messages between the extension and the report webview. The page asks for its data once it
 * has loaded (`ready`); the extension answers with the model. Both sides check what they get:
 * a webview message is untrusted input.
 */
import type { ReportModel } from './schema';

/** Webview → extension: the page script is loaded and listening. */
export interface ReadyMessage {
  type: 'ready';
}

/** Extension → webview: the report to draw. */
export interface ReportMessage {
  type: 'report';
  model: ReportModel;
}

export type ToExtension = ReadyMessage;
export type ToWebview = ReportMessage;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export function isReadyMessage(v: unknown): v is ReadyMessage {
  return isObject(v) && v.type === 'ready';
}

/** A report message whose model has the parts the page reads (the extension made it, but check). */
export function isReportMessage(v: unknown): v is ReportMessage {
  return isObject(v) && v.type === 'report' && isObject(v.model) && Array.isArray((v.model as { structure?: unknown }).structure) && Array.isArray((v.model as { judges?: unknown }).judges);
}
