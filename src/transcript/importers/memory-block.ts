/**
 * Finds the memory block a run started with inside a system prompt, so that phase 1 can drop it (it is
 * what the run was told, not what it learned). Recognised: a Markdown heading naming memory from earlier
 * runs (the block runs to the next heading of the same or a higher level), or a `<memory…>…</memory…>`
 * element. Returns the prompt without the block, and the block; `memoryBlock` is undefined when none is found.
 */
export function splitMemoryBlock(systemPrompt: string): { system: string; memoryBlock: string | undefined } {
  const tagged = /<(memory[\w-]*)\b[^>]*>[\s\S]*?<\/\1>/i.exec(systemPrompt);
  if (tagged) {
    return {
      system: (systemPrompt.slice(0, tagged.index) + systemPrompt.slice(tagged.index + tagged[0].length)).trim(),
      memoryBlock: tagged[0],
    };
  }
  const lines = systemPrompt.split('\n');
  const start = lines.findIndex((l) => /^#{1,6}\s.*\bmemor(y|ies)\b.*\b(earlier|previous|past|prior)\b/i.test(l));
  if (start === -1) return { system: systemPrompt, memoryBlock: undefined };
  const level = /^#+/.exec(lines[start]!)![0].length;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i += 1) {
    const h = /^(#{1,6})\s/.exec(lines[i]!);
    if (h && h[1]!.length <= level) {
      end = i;
      break;
    }
  }
  return {
    system: [...lines.slice(0, start), ...lines.slice(end)].join('\n').trim(),
    memoryBlock: lines.slice(start, end).join('\n').trim(),
  };
}
