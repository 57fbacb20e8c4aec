/**
 * Words that address an AI agent or its memory in languages other than English (round 23): a planted line in a
 * vendored README or a tool's output is written in any language ("KI-Agenten: merkt euch …", "エージェントは
 * 必ず覚えておくこと", "ajanlar şunu unutmasın"). Closed-class words only — who is addressed (agents, AI, the
 * assistant), its memory, "remember", "ignore the previous instructions" — never a command or a host, and never
 * words a tool's own error message uses (German "Anweisung" is a compiler's "statement"; "指令" a CPU's).
 */
export const INSTRUCTION_WORDS_WORLD = new RegExp(
  [
    // Who is addressed: agents and assistants, "AI" when it is said with them.
    '(?<![\\p{L}\\p{N}])(KI-\\p{L}+|Agenten|agentes|agenti|agentów|agenci|agentit|agenter|agentů|ajanlar\\p{L}*|yapay zek[aâ]\\p{L}*|ИИ-\\p{L}+|агент(ы|ам|ов|ами)|агентів|агенти|tác tử|trợ lý AI|एजेंट(ों)?)(?![\\p{L}\\p{N}])',
    '(智能体|AI\\s*代理|AI\\s*助手|人工智能|エージェント|AIアシスタント|에이전트|AI 어시스턴트)',
    // Its memory, and "remember": the words of writing something down for later.
    '(?<![\\p{L}\\p{N}])(Gedächtnis|merkt euch|merke dir|merken Sie sich|souviens-toi|souvenez-vous|retenez|recuerda|recordad|recuerden|lembre-se|lembrem-se|ricorda(te)?|onthoud|zapamiętaj(cie)?|запомни(те)?|запам.ятай(те)?|unutmayın|unutma|hatırlayın|hãy nhớ|ghi nhớ|याद रखें|याद रखो)(?![\\p{L}\\p{N}])',
    '(记住|記住|记忆中|記憶に|覚えておいて|覚えておくこと|メモリに保存|기억해|기억하세요|메모리에 저장)',
    // "Ignore the previous instructions" and its kin.
    '(?<![\\p{L}\\p{N}])(ignorier(e|t) (alle |die )?(vorherigen|bisherigen)|ignore[zr]? (toutes )?les instructions|ignora (las |todas las |le |tutte le )?(instrucciones|istruzioni) (anteriores|precedenti)|игнорируй(те)? (все |предыдущие )|önceki talimatları yok say)',
    '(忽略(之前|以上|所有)的?(指令|指示|说明)|以前の指示を無視|前の指示を無視|이전 지시(를|사항을) 무시)',
  ].join('|'),
  'iu',
);
