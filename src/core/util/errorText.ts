/** The one-line text of anything thrown, for every front end: the first line of its message, never a stack. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] || err.name;
  return String(err);
}
