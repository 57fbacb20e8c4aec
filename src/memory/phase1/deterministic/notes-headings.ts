/**
 * Headings the agent puts over what it wants remembered in its final message ("Notes:", "For next time:",
 * "Worth knowing for this repo:", "Poznámka:", "注意：", "नोट:"), in the languages users write (issue 12).
 */

/** The words of a heading, without markup or colon. */
const WORDS =
  '(?:(?:[a-z-]+ ){0,2}(?:notes?|tips?)|(?:[a-z-]+ ){0,3}(?:to know|in mind|to remember|for (?:this|the) (?:repo|repository|project|codebase)|for (?:future|later|the next) runs?|for later|learned)|fyi|things to know|hints?|heads[- ]up|caveats?|gotchas?|important|lessons? learned|takeaways?|for next time|for the next run|good to know|hinweise?|gut zu wissen|zu beachten|(?:bon )?à savoir|à retenir|a tener en cuenta|para recordar|bom saber|da sapere|anmerkung(?:en)?|für das nächste mal|notas?|para la próxima(?: vez)?|remarques?|pour la prochaine fois|observaç(?:ão|ões)|obs|per la prossima volta|let op|opmerking(?:en)?|uwagi?|notera|anteckning(?:ar)?|bemærk|merk(?:nad)?|poznámk[ay]|pozor|not(?:lar)?|dikkat|catatan|lưu ý|ghi chú|примечани[ея]|заметки|важно|обратите внимание|примітк[аи]|увага|σημειώσεις|σημείωση|नोट|ध्यान दें|注意(?:事项)?|备注|提示|メモ|補足|備考|참고|주의|huom(?:io|aa|autus)?|muistiinpanot?|vinkki|nota|perhatian|peringatan|notă|observați[ei]|atenție|sfat|opomb[ae]|nasvet|atenció|consell|megjegyzés|figyelem|tipp|fontos|napomena|pažnja|savjet|забележка|бележки|съвет|märkus|nõuanne|piezīme|padoms|pastaba|patarimas|הערות|הערה|שים לב|טיפ|หมายเหตุ|ข้อควรระวัง|เคล็ดลับ|ملاحظات|ملاحظة|تنبيه|نصيحة|نکته|توجه|یادداشت|নোট|দ্রষ্টব্য|tandaan|paalala|kumbuka|tanbihi|dokezo|για (?:την|τις) επόμεν\\S* φορ\\S*|на будущее|в следующий раз|на майбутнє|наступного разу|na przyszłość|następnym razem|pro příště|příště|(?:till|inför) nästa gång|til næste gang|til neste gang|(?:voor )?de volgende keer|para a próxima(?: vez)?|bir dahaki sefere|gelecek sefer için|(?:untuk )?lain kali|lần sau|下次|以后注意|次回|다음에|अगली बार|ensi kerralla|seuraavalla kerralla|legközelebb|a következő alkalomra|(?:pentru )?data viitoare|לפעם הבאה|(?:في|ل)ل?مرة القادمة|ครั้งหน้า|ครั้งต่อไป)';

/** Words that mark a short line ending in a colon as a heading of notes wherever they stand in it ("חשוב לריצות הבאות:"). */
const CUES =
  `(?:${WORDS}|important|wichtig|importante|importantes|ważne|důležité|önemli|penting|quan trọng|महत्वपूर्ण|중요|重要|חשוב|важно|важливо|tärkeää|fontos|viktig|vigtigt|belangrijk|σημαντικό|مهم|สำคัญ|muhimu|mahalaga|next runs?|future runs?|הבאות|הבאה)`;

const MARKUP = '(?:\\*\\*|__)?';

/** A heading at the start of a line (after a bullet or bold markup), up to its colon. */
export const NOTES_HEADING = new RegExp(`^\\s*(?:[-*•]\\s*)?${MARKUP}${WORDS}${MARKUP}\\s*[:：]\\s*`, 'i');

/** The same heading after a finished sentence, inside a paragraph ("… Versionumeroa en nostanut. Huom: se ei ole …"). */
export const INLINE_HEADING = new RegExp(`(?<=[.!?。！？]\\s+)${MARKUP}${WORDS}${MARKUP}\\s*[:：]\\s*`, 'i');

/** A short line ending in a colon with a cue anywhere in it, over a list: "Worth knowing for this repo:", "חשוב לריצות הבאות:". */
export function cueHeading(line: string): boolean {
  const t = line.trim().replace(/^#+\s*/, '').replace(/^(\*\*|__)|(\*\*|__)$/g, '');
  return t.length <= 80 && /[:：](\*\*|__)?$/.test(t) && CUE.test(t);
}
const CUE = new RegExp(`(?<![\\p{L}\\p{N}])${CUES}(?![\\p{L}\\p{N}])`, 'iu');
