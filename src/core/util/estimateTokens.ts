/** Rough token count of a text: 4 characters per token, rounded up (prompt budgets and cost estimates alike). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
