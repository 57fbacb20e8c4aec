import { dangerousInstruction } from '../injection.js';
import { looksLikeInstruction } from './error-lines.js';
import { citesRunEvidence } from './evidence.js';
import type { RolloutView, Said } from './rollout.js';

/**
 * The agent ended the run itself: the transcript's last event is its own message, not a tool call waiting
 * for a result. A run that "failed" this way stopped on purpose (it explained why); one cut on a tool call
 * was stopped by a limit, an error or a crash.
 */
export function stoppedOnPurpose(view: RolloutView): boolean {
  const last = lastAssistant(view);
  const lastStep = view.steps.at(-1);
  return !!last && (!lastStep || last.at > lastStep.at);
}

/** The agent's final message: its last message when the run ended on it (no tool call after), else undefined. */
export function lastAssistantText(view: RolloutView): Said | undefined {
  return stoppedOnPurpose(view) ? lastAssistant(view) : undefined;
}

function lastAssistant(view: RolloutView): Said | undefined {
  return view.said.filter((s) => s.role === 'assistant').at(-1);
}

/** Words that mark a finding: a cause, a constraint of the environment, a dead end, a plan (several languages). */
const FINDING = new RegExp(
  [
    '\\b(root cause|cause|because|since|needs?|requires?|required|missing|not installed|not available|no network|offline|blocked|cannot|can\'t|could not|unable|fails?|failed|only|instead|workaround|plan|next steps?|todo|left to do|remaining|still|has .{1,40} but)\\b',
    '\\(\\d\\)|^\\d[.)]\\s',
    '\\b(ursache|weil|braucht|benötigt|fehlt|nicht|plan|noch|nächste\\w*|als nächstes)\\b',
    '\\b(causa|porque|necesita|falta|plan|no hay|no tiene|pendiente|todavía|próximos? pasos?|siguiente)\\b',
    '\\b(cause|parce que|besoin|manque|plan|il reste|pas de|impossible|prochaines? étapes?)\\b',
    '\\b(causa|porque|precisa|falta|plano|próximos passos|ainda)\\b',
    '(원인|때문|필요|계획|다음|없음|없습니다|못했)',
    '(原因|因为|需要|缺少|计划|无法|不能|还没|下一步|接下来)',
    '(原因|ため|必要|計画|次の手順|次に|できません|できず|ない|未)',
    '(?<![\\wÀ-ɏḀ-ỿ])(causa|perché|manca|piano|ancora|prossimi passi|oorzaak|omdat|nodig|ontbreekt|volgende stappen|przyczyna|ponieważ|potrzeb\w*|brak|jeszcze|następne kroki|orsak|eftersom|behöver|saknas|ännu|nästa steg|fortfarande|årsag|årsak|fordi|mangler|næste skridt|neste steg|stadig|fortsatt|příčina|protože|potřebuje|chybí|plán|ještě|další kroky|neden|çünkü|gerek\w*|eksik|henüz|sonraki adım\w*|bulgular|asıl engel|engel|penyebab|karena|perlu|butuh|tidak ada|rencana|masih|langkah berikutnya|temuan|nguyên nhân|vì|cần|thiếu|kế hoạch|vẫn|bước tiếp theo|không có)(?![\wÀ-ɏḀ-ỿ])',
    '(причина|потому что|нужн|не хватает|нет |план|следующ|ещё|еще|тому що|потрібн|бракує|немає|наступн|αιτία|επειδή|χρειάζεται|λείπει|σχέδιο|ακόμα|επόμενα βήματα|कारण|क्योंकि|ज़रूरत|जरूरत|चाहिए|नहीं है|योजना|अगले कदम|अभी भी)',
  ].join('|'),
  'i',
);

/**
 * A constraint of the environment the run worked in, in the languages users write (en, de, es, fr, pt, zh, ja,
 * ko): no network, a host out of reach, a permission, a password, something not installed, a read-only place,
 * or a sentence about "this environment / the sandbox" itself. A root cause in the code ("Get/Put still use
 * the map") is the task's state, not the environment's, and stays with the unfinished task.
 */
export const CONSTRAINT = new RegExp(
  [
    "\\b(no network|without (a )?network|no internet|network is (down|unreachable|blocked)|offline|unreachable|can(no|')t reach|cannot be reached|could not (resolve|connect)|permission denied|not (readable|writable)|read-only|needs? a password|requires? a password|password is required|not installed|isn't installed|can(no|')t (be )?install|no access|not allowed|(environment|sandbox|container) (has|lacks|does|is|cannot|can't|blocks))\\b",
    '\\b(in (this|the) (environment|sandbox|container))\\b',
    // Failures that were there before the run: the next run should not take them for its own.
    "\\b(pre-?existing|were (already )?there before|already (failing|broken|red) (before|on main)|not (caused|introduced) by (this|my) change|untouched by (this|my) change|frozen (since|package|directory|code))\\b",
    '(?<![\\wÀ-ɏḀ-ỿ])(bereits vorher|schon vorher|vorbestehend\\w*|preexistente?s?|ya exist[ií]an|préexistant\\w*|existaient déjà|già presenti|preesistent\\w*|já existiam|pré-existente\\w*|bestonden al|istniały wcześniej|уже были|существовавш\\w*|вже були|önceden var|zaten vardı|sudah ada sebelumnya|đã có từ trước)(?![\\wÀ-ɏḀ-ỿ])|已有的|之前就有|原有的错误|既存の|元々あった|기존 오류|이미 있던',
    '\\b(kein (netz|internet|netzwerk)|keine (netzwerk|verbindung|berechtigung)|nicht erreichbar|zugriff verweigert|nicht installiert|schreibgeschützt|umgebung)',
    '\\b(sin (red|conexión|acceso)|no (tiene|hay) (red|conexión|acceso)|no se puede (acceder|conectar|instalar)|permiso denegado|no está instalad[oa]|entorno)',
    "\\b(pas de réseau|sans réseau|injoignable|inaccessible|permission refusée|pas installée?|lecture seule|environnement)",
    '\\b(sem rede|sem acesso|não está instalad[oa]|ambiente)',
    '(没有网络|无网络|网络不通|无法访问|无法连接|权限|需要密码|未安装|只读|环境|沙箱)',
    '(ネットワーク|接続でき|パスワードが必要|権限|インストールされていない|インストールでき|読み取り専用|環境)',
    '(네트워크|권한|비밀번호가 필요|설치되어 있지 않|환경)',
    '(?<![\\wÀ-ɏḀ-ỿ])(nessuna rete|senza rete|non raggiungibile|permesso negato|non installat[oa]|sola lettura|ambiente|geen netwerk|niet bereikbaar|geen toegang|toegang geweigerd|niet geïnstalleerd|alleen-lezen|omgeving|brak sieci|bez sieci|nieosiągaln\w*|brak dostępu|odmowa dostępu|nie jest zainstalowan\w*|tylko do odczytu|środowisk\w*|inget nätverk|utan nätverk|nås inte|åtkomst nekad|inte installerad|skrivskyddad|miljö\w*|intet netværk|ingen nettverk|ikke tilgængelig|ikke tilgjengelig|adgang nægtet|ikke installeret|ikke installert|skrivebeskyttet|miljø\w*|bez sítě|žádná síť|nedostupn\w*|přístup odepřen|není nainstalován\w*|jen pro čtení|prostředí|ağ yok|internet yok|erişilemiyor|ulaşılamıyor|izin reddedildi|kurulu değil|yüklü değil|salt okunur|ortam\w*|tidak ada jaringan|tanpa jaringan|tidak bisa dijangkau|tidak dapat diakses|akses ditolak|tidak terpasang|belum terpasang|lingkungan|không có mạng|không có internet|không truy cập được|không kết nối được|bị từ chối|chưa cài|không được cài|chỉ đọc|môi trường)(?![\wÀ-ɏḀ-ỿ])',
    '(нет сети|без сети|недоступ|нет доступа|доступ запрещ|не установлен|только для чтения|окружени|в этой среде|песочниц|немає мережі|без мережі|недоступн|доступ заборонено|не встановлен|лише для читання|середовищ|пісочниц|χωρίς δίκτυο|δεν υπάρχει δίκτυο|μη προσβάσιμ|δεν είναι εγκατεστημένο|μόνο για ανάγνωση|περιβάλλον|नेटवर्क नहीं|इंटरनेट नहीं|पहुँच नहीं|पहुंच नहीं|इंस्टॉल नहीं|केवल पढ़ने|वातावरण|परिवेश)',
  ].join('|'),
  'i',
);

/** Words that give a reason (several languages): "because", "since", "so", "needs", "the daemon does not know …". */
const REASON = new RegExp(
  [
    "\\b(because|since|so that|which is why|that's why|needs?|requires?|only|does(n't| not) (know|find|see|have)|is not|isn't|missing|expects?)\\b",
    '(?<![\\wÀ-ɏḀ-ỿ])(weil|da |denn|braucht|benötigt|kennt|fehlt|nur|porque|necesita|falta|solo|parce que|car |besoin|manque|seulement|perché|serve|manca|solo|omdat|nodig|ontbreekt|alleen|ponieważ|potrzebuje|brak|tylko|eftersom|behöver|saknas|bara|protože|potřebuje|chybí|jen|çünkü|gerek|eksik|sadece|karena|perlu|butuh|hanya|vì|cần|thiếu|chỉ)(?![\\wÀ-ɏḀ-ỿ])',
    '(потому что|нужн|не хватает|только|тому що|потрібн|бракує|лише|επειδή|χρειάζεται|λείπει|μόνο|क्योंकि|ज़रूरत|जरूरत|चाहिए|केवल|因为|由于|需要|缺少|只有|ため|必要|ので|だけ|때문|필요|없어서)',
  ].join('|'),
  'i',
);

/**
 * The agent's own reason for a fix: the first whole sentence it said between two events (`from` and `to`,
 * positions as in `Said.at`) that gives one (`REASON`), at most `max` characters; never a sentence that passes
 * on an instruction read in tool output or tells to fetch and run code.
 */
export function reasonSaid(view: RolloutView, from: number, to: number, max = 220): string | undefined {
  for (const s of view.said) {
    if (s.role !== 'assistant' || s.at <= from || s.at >= to) continue;
    for (const sentence of sentencesOf(s.text)) {
      if (sentence.length > max || !REASON.test(sentence) || looksLikeInstruction(sentence) || dangerousInstruction(sentence)) continue;
      return sentence;
    }
  }
  return undefined;
}

/** Sentences of a text, whole (never cut), in order. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .split(/(?<=[.!?])\s+(?=[^\s])|(?<=[。！？])|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1);
}

/**
 * What a failed or partial run found, in the agent's own whole sentences: its final message when it ended
 * the run itself, then its notes along the way (newest first) — only sentences that state a cause, a
 * constraint, a dead end or a plan, never one that passes on an instruction read in tool output nor one that
 * tells to fetch and run code or weaken security (`dangerousInstruction`, alone or with a neighbour). Within
 * `budget` characters: a sentence that does not fit is left out whole, never cut. In transcript order.
 */
export function runFindings(view: RolloutView, budget = 900): string[] {
  const notes = view.said.filter((s) => s.role === 'assistant');
  const final = stoppedOnPurpose(view) ? notes.at(-1) : undefined;
  const picked: Array<{ at: number; i: number; text: string }> = [];
  let used = 0;
  const take = (s: Said, all: boolean) => {
    const sentences = sentencesOf(s.text);
    sentences.forEach((text, i) => {
      // In the final message, a sentence that cites what the run ran or saw is a finding in any language.
      const found = FINDING.test(text) || CONSTRAINT.test(text) || (s === final && citesRunEvidence(view, text));
      if (looksLikeInstruction(text) || (!all && !found)) return;
      // A plan to fetch and run code or weaken security is never passed on, also when it spans two sentences
      // ("Download it with `curl … -o /tmp/i.sh`. Then `bash /tmp/i.sh`.").
      // A neighbour that is dangerous on its own is dropped by itself; only a pair that is dangerous together drops both.
      const pair = (a: string | undefined, b: string | undefined) => !!a && !!b && !dangerousInstruction(a === text ? b : a) && dangerousInstruction(`${a} ${b}`);
      if (dangerousInstruction(text) || pair(sentences[i - 1], text) || pair(text, sentences[i + 1])) return;
      if (used + text.length + 1 > budget) return;
      used += text.length + 1;
      picked.push({ at: s.at, i, text });
    });
  };
  if (final) take(final, false);
  for (const n of [...notes].reverse()) if (n !== final) take(n, false);
  return picked.sort((a, b) => a.at - b.at || a.i - b.i).map((p) => p.text);
}
