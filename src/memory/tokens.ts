/**
 * Token estimate for budgets (MEMORY.md cap, summary cap, the prompt's memory block): about 4 bytes of
 * UTF-8 per token, which is close for English and code with Claude's tokenizer and errs on the safe
 * side for other scripts. No tokenizer is shipped for Claude; the API's count_tokens would cost a call.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}
