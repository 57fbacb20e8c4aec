/**
 * Statements that the repository changed, in languages beyond the ones `staleTerms` (supersede.ts) spells out:
 * Swedish, Danish/Norwegian, Czech, Ukrainian, Turkish, Indonesian, Vietnamese, Greek and Hindi. Each pattern
 * gives the term that is outdated and, for a switch "from X to Y", the replacement. Word lists, not lessons:
 * they decide that a sentence states a switch, never which entries it retires (that is `mentions`).
 */

/** One outdated term (and what replaced it, when the sentence says). */
export interface MoreStaleTerm {
  term: string;
  replacement?: string;
}

// A code span is one term, whole (`deno task test`): never its last word.
const W = '(`[^`\\n]+`|[\\w.@:/+-]+)';
// Turkish attaches case endings with an apostrophe: "Poetry'den uv'ye".
const TR = "(`[^`\\n]+`|[\\w.@:/+-]+?)(?:'\\p{L}+)?";

/** `[pattern, has a replacement group]`: group 1 is the outdated term, group 2 (when there) its replacement. */
const SWITCHES: Array<[RegExp, boolean]> = [
  // sv: "bytt/gått över/migrerat från X till Y"; da/no: "skiftet/byttet/migreret fra X til Y".
  [new RegExp(`(?:bytt|bytte|gått över|gick över|migrerat|migrerade|flyttat|skiftet|byttet|skiftede|migreret|migrert|gået over|gått over)\\s+(?:\\S+\\s+)?från\\s+${W}\\s+till\\s+${W}`, 'giu'), true],
  [new RegExp(`(?:skiftet|byttet|skiftede|migreret|migrert|gået over|gått over)\\s+(?:\\S+\\s+)?fra\\s+${W}\\s+til\\s+${W}`, 'giu'), true],
  [new RegExp(`${W}\\s+(?:används|behövs)\\s+inte längre`, 'giu'), false],
  [new RegExp(`(?:använder|behöver)\\s+(?:vi\\s+)?inte\\s+${W}\\s+längre`, 'giu'), false],
  [new RegExp(`(?:bruger|bruker|trenger|behøver)\\s+(?:vi\\s+)?ikke\\s+${W}\\s+(?:længere|lenger)`, 'giu'), false],
  // cs: "přešli jsme z X na Y", "X už nepoužíváme", "už nepoužíváme X".
  [new RegExp(`(?:přešli|přešel|přešla|migrovali|migroval)\\s+(?:jsme\\s+)?(?:\\S+\\s+)?(?:z|ze)\\s+${W}\\s+na\\s+${W}`, 'giu'), true],
  [new RegExp(`${W}\\s+(?:už|již)\\s+(?:nepoužíváme|nepotřebujeme|se nepoužívá|není potřeba)`, 'giu'), false],
  [new RegExp(`(?:už|již)\\s+(?:nepoužíváme|nepotřebujeme)\\s+${W}`, 'giu'), false],
  // uk: "перейшли з X на Y", "X більше не потрібен", "більше не використовуємо X".
  [new RegExp(`перейшли\\s+(?:з|із|зі)\\s+${W}\\s+на\\s+${W}`, 'giu'), true],
  [new RegExp(`${W}\\s+більше не\\s+(?:потрібен|потрібна|потрібно|потрібні|використовується|використовуємо)`, 'giu'), false],
  [new RegExp(`більше не\\s+(?:використовуємо|потрібен|потрібна)\\s+${W}`, 'giu'), false],
  // tr: "X'ten Y'ye geçtik", "X yerine Y kullanıyoruz", "artık X kullanmıyoruz", "X artık kullanılmıyor".
  [new RegExp(`${TR}\\s+(?:\\S+\\s+)?${TR}\\s+(?:geçtik|geçildi|taşıdık|taşındı)`, 'giu'), true],
  [new RegExp(`${TR}\\s+yerine\\s+${TR}`, 'giu'), true],
  [new RegExp(`artık\\s+${TR}\\s+(?:kullanmıyoruz|gerekmiyor|yok)`, 'giu'), false],
  [new RegExp(`${TR}\\s+artık\\s+(?:kullanılmıyor|gerekmiyor|yok)`, 'giu'), false],
  // id: "pindah/beralih/migrasi dari X ke Y", "X tidak berlaku lagi", "tidak (lagi) pakai X".
  [new RegExp(`(?:pindah|beralih|migrasi|bermigrasi|diganti)\\s+(?:\\S+\\s+)?dari\\s+${W}\\s+(?:ke|menjadi)\\s+${W}`, 'giu'), true],
  [new RegExp(`${W}\\s+(?:sudah\\s+)?tidak\\s+(?:berlaku|dipakai|digunakan|diperlukan)\\s+lagi`, 'giu'), false],
  [new RegExp(`(?:tidak|tak|nggak|gak)\\s+(?:lagi\\s+)?(?:pakai|memakai|menggunakan)\\s+${W}(?:\\s+lagi)?`, 'giu'), false],
  // vi: "chuyển từ X sang Y", "bỏ X và chuyển sang Y", "X không còn (dùng) nữa".
  [new RegExp(`chuyển\\s+từ\\s+${W}\\s+sang\\s+${W}`, 'giu'), true],
  [new RegExp(`bỏ\\s+${W}\\s+(?:và|rồi)\\s+chuyển\\s+sang\\s+${W}`, 'giu'), true],
  [new RegExp(`${W}\\s+(?:đã\\s+)?không\\s+còn\\s+(?:(?:được\\s+)?(?:dùng|sử dụng|cần)\\s+)?nữa`, 'giu'), false],
  [new RegExp(`(?:không|ko)\\s+(?:dùng|sử dụng)\\s+${W}\\s+nữa`, 'giu'), false],
  // el: "μεταβήκαμε/μεταφερθήκαμε από X σε Y", "δεν χρησιμοποιούμε πλέον X".
  [new RegExp(`(?:μεταβήκαμε|μεταφερθήκαμε|περάσαμε|αλλάξαμε)\\s+(?:\\S+\\s+)?από\\s+(?:το\\s+|τη\\s+|τον\\s+)?${W}\\s+(?:σε|στο|στη|στον)\\s+${W}`, 'giu'), true],
  [new RegExp(`δεν\\s+(?:χρησιμοποιούμε|χρειαζόμαστε)\\s+(?:πλέον|πια)\\s+(?:το\\s+|τη\\s+|τον\\s+)?${W}`, 'giu'), false],
  // hi: "X से Y पर स्विच/माइग्रेट", "X की अब ज़रूरत नहीं", "अब X इस्तेमाल नहीं".
  [new RegExp(`${W}\\s+से\\s+${W}\\s+(?:पर|में)\\s+(?:स्विच|माइग्रेट|शिफ्ट)`, 'gu'), true],
  [new RegExp(`${W}\\s+(?:की|का)\\s+अब\\s+(?:ज़रूरत|जरूरत)\\s+नहीं`, 'gu'), false],
  [new RegExp(`अब\\s+${W}\\s+(?:इस्तेमाल|उपयोग)\\s+नहीं`, 'gu'), false],
];

function bare(term: string): string {
  return term.replace(/^`|`$/g, '');
}

/** Terms declared outdated by a sentence in one of this module's languages. */
export function moreStaleTerms(text: string): MoreStaleTerm[] {
  const out: MoreStaleTerm[] = [];
  for (const [re, replaced] of SWITCHES) {
    for (const m of text.matchAll(re)) out.push(replaced ? { term: bare(m[1]!), replacement: bare(m[2]!) } : { term: bare(m[1]!) });
  }
  return out;
}
