/**
 * Whether words a person typed state something lasting about the repository or only steer this run.
 * Word lists in several languages (en, de, fr, es, pt, it, nl, pl, ru, zh, ja, ko, sv, da/no, cs, uk, tr, id, vi,
 * el, hi, and those of `durable-more.ts` and `durable-world.ts`); they decide between kinds of
 * sentence, never which lesson a sentence teaches.
 */

import { MORE_CHANGED, MORE_COMMANDING, MORE_LASTING_MARKERS, MORE_ONE_OFF } from './durable-more.js';
import { WORLD_CHANGED, WORLD_COMMANDING, WORLD_LASTING_MARKERS, WORLD_ONE_OFF } from './durable-world.js';
import { FAR_COMMANDING, FAR_LASTING_MARKERS, FAR_ONE_OFF } from './durable-far.js';

/** Said as lasting: "always", "never", "in this repo", "from now on", "we use …", "… on purpose" and equivalents. */
export const DURABLE = new RegExp(
  [
    "(?<![\\wÀ-ɏ])(always|never|from now on|going forward|in (this|the) (repo|repository|project|codebase)|(repo|project)[- ]wide|every (time|test|commit)|each time|by default|as a rule|our convention|house style|keep using|(we|this repo|this project) (use|uses|prefer|prefers|support|supports|don't use|do not use|never use)|on purpose|deliberately|that goes for every)(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(immer|niemals|nie|ab jetzt|von nun an|künftig|grundsätzlich|jedes mal|in diesem (repo|projekt)|wir (nutzen|verwenden))(?![\\wÀ-ɏ])',
    "(?<![\\wÀ-ɏ])(toujours|jamais|désormais|à partir de maintenant|dans ce (dépôt|projet)|on utilise)(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(siempre|nunca|a partir de ahora|de ahora en adelante|en este (repo|repositorio|proyecto)|usamos)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(sempre|a partir de agora|d\'ora in poi|mai più|in questo (repo|repository|progetto)|usiamo|ogni volta|neste (repo|repositório|projeto)|daqui para frente)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(altijd|nooit|voortaan|vanaf nu|in deze (repo|repository)|we gebruiken|elke keer)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(zawsze|nigdy|od teraz|odtąd|w tym (repo|repozytorium|projekcie)|za każdym razem|używamy)(?![\\wąćęłńóśźż])',
    '(всегда|никогда|впредь|отныне|с этого момента|в этом (репозитории|репо|проекте)|каждый раз)',
    '(以后|今后|往后|总是|始终|每次|永远|一律|都要|不要再|在这个仓库|本仓库|這個倉庫|以後)',
    '(必ず|常に|いつも|今後|これから|このリポジトリでは|絶対に|毎回)',
    '(항상|앞으로|절대|매번)',
    '(?<![\\wÀ-ɏḀ-ỿ])(alltid|aldrig|från och med nu|hädanefter|framöver|i det här (repot|projektet)|varje gång|vi använder|altid|aldri|fra nu af|fra nå av|fremover|i dette (repo|prosjektet|projekt)|hver gang|vi bruger|vi bruker)(?![\\wÀ-ɏḀ-ỿ])',
    '(?<![\\wÀ-ɏḀ-ỿ])(vždy|vždycky|nikdy|od teď|odteď|napříště|v tomto (repozitáři|projektu)|pokaždé|používáme)(?![\\wÀ-ɏḀ-ỿ])',
    '(?<![\\wÀ-ɏḀ-ỿ])(her zaman|asla|bundan sonra|bu (depoda|projede|repoda)|her seferinde|kullanıyoruz)(?![\\wÀ-ɏḀ-ỿ])',
    '(?<![\\wÀ-ɏḀ-ỿ])(selalu|jangan pernah|tidak pernah|mulai sekarang|ke depannya|ke depan|di (repo|proyek) ini|setiap kali|kami (pakai|menggunakan))(?![\\wÀ-ɏḀ-ỿ])',
    '(?<![\\wÀ-ɏḀ-ỿ])(luôn luôn|luôn|không bao giờ|từ giờ|từ nay|từ bây giờ|về sau|trong (repo|dự án) này|mỗi lần|chúng (tôi|ta) dùng)(?![\\wÀ-ɏḀ-ỿ])',
    '(завжди|ніколи|відтепер|надалі|з цього моменту|у цьому (репозиторії|проєкті|проекті)|щоразу|кожного разу|πάντα|ποτέ|από τώρα και στο εξής|στο εξής|από (εδώ|δω|τώρα) και (πέρα|μπρος|εμπρός)|σε αυτό το αποθετήριο|κάθε φορά|हमेशा|कभी नहीं|अब से|आगे से|इस (रिपो|प्रोजेक्ट) में|हर बार)',
    ...MORE_LASTING_MARKERS,
    ...MORE_COMMANDING,
    ...WORLD_LASTING_MARKERS,
    ...WORLD_COMMANDING,
    ...FAR_LASTING_MARKERS,
    ...FAR_COMMANDING,
  ].join('|'),
  'i',
);

/** Said for this run only: "for now", "this time", "I'll … myself", "for this task" and equivalents. */
export const ONE_OFF = new RegExp(
  [
    "(?<![\\wÀ-ɏ])(for now|this time|for this (task|change|pr|one|run)|right now|today|just this once|for the moment|at the moment|i'll [\\w ]{1,40}myself|i will [\\w ]{1,40}myself|until (i|we) )(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(vorerst|diesmal|dieses mal|fürs erste|für jetzt|mache ich selbst)(?![\\wÀ-ɏ])',
    "(?<![\\wÀ-ɏ])(pour l'instant|cette fois|pour le moment|je (le )?ferai moi-même)(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(por ahora|esta vez|de momento|por el momento|lo haré yo)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(voor nu|deze keer|dit keer|na razie|tym razem|per ora|per adesso|questa volta|por enquanto|desta vez|por agora)(?![\\wÀ-ɏ])',
    '(这次|這次|暂时|暫時|先不要|目前先|今回|とりあえず|ひとまず|一旦|이번에는|пока что|в этот раз|на этот раз)',
    '(?<![\\wÀ-ɏḀ-ỿ])(den här gången|för tillfället|tills vidare|denne gang|denne gangen|foreløpig|tentokrát|prozatím|bu sefer|bu seferlik|şimdilik|kali ini|untuk sementara|untuk sekarang|lần này|tạm thời)(?![\\wÀ-ɏḀ-ỿ])',
    '(цього разу|поки що|αυτή τη φορά|προς το παρόν|इस बार|फ़िलहाल|फिलहाल|अभी के लिए)',
    ...MORE_ONE_OFF,
    ...WORLD_ONE_OFF,
    ...FAR_ONE_OFF,
  ].join('|'),
  'i',
);

/**
 * A statement that the repository changed: "switched/moved/migrated (from X) to Y", "X is gone", "X no longer
 * exists / is no longer needed", "is Y now", and equivalents ("从 X 迁移到 Y", "X 换成了 Y", "auf Y umgestellt",
 * "ya no", "ne … plus", "に移行"). Such a sentence is a fact about the repository, and it retires older
 * entries about X (phase 2).
 */
export const CHANGED = new RegExp(
  [
    '(?<![\\wÀ-ɏ])(switched|moved|migrated|changed|converted|went) (over )?(from|to)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(is|are) (gone|no longer (used|needed|there)|deprecated now|removed now)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])no longer (exists?|needs?|uses?|used|needed|works?|required)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(is|are) \\w+ now\\b',
    '(?<![\\wÀ-ɏ])(umgestellt|gewechselt|migriert|nicht mehr)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(migrado|cambiamos|ya no)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(migré|passé de|ne \\w+ plus|n\'\\w+ plus)(?![\\wÀ-ɏ])',
    '(迁移到|遷移到|迁移至|换成了|換成了|改成了|不再|改用)',
    '(に移行|へ移行|に切り替え|もう使わない|廃止)',
    '(이전했|더 이상)',
    '(перешли|больше не)',
    '(?<![\\wÀ-ɏ])(migrato|migrati|passati a|non \\w+ più|migrado|mudamos|não \\w+ mais)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(overgestapt|gemigreerd|niet meer)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(przeszliśmy|zmigrowaliśmy|już nie)(?![\\wąćęłńóśźż])',
    '(?<![\\wÀ-ɏḀ-ỿ])(bytt till|gått över till|migrerat till|inte längre|skiftet til|byttet til|ikke længere|ikke lenger|přešli jsme|už nepoužíváme|již nepoužíváme|geçtik|artık kullanmıyoruz|pindah ke|beralih ke|tidak berlaku lagi|tidak dipakai lagi|chuyển sang|không còn|đã bỏ)(?![\\wÀ-ɏḀ-ỿ])',
    '(перейшли|більше не|μεταβήκαμε|μεταφερθήκαμε|πλέον δεν|δεν \S+ πλέον|पर स्विच|में माइग्रेट|अब ज़रूरत नहीं|अब जरूरत नहीं|अब [^।.!?\n]{0,60}(इस्तेमाल|उपयोग|प्रयोग) नहीं (करते|करती|करता|होता|होती)|اب [^۔.!?\n]{0,60}استعمال نہیں (کرتے|کرتی|کرتا|ہوتا))',
    ...MORE_CHANGED,
    ...WORLD_CHANGED,
  ].join('|'),
  'i',
);

/** Splits text a person typed into sentences and clauses (. ! ? 。 ！ ？ । ۔ ։ ። ; — and line breaks). */
export function clauses(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？।۔։።])\s*|\n+|\s*;\s*|\s+[—–]\s+|；/)
    .map((s) => s.trim())
    .filter((s) => s.replace(/[\s\p{P}]/gu, '').length > 0);
}

/**
 * Markers that say a rule lasts beyond this run wherever they stand: a time ("from now on", "ab jetzt",
 * "以后", "今後"), a scope ("in this repo", "このリポジトリでは") or a convention ("we use", "our convention").
 */
const LASTING_MARKER = new RegExp(
  [
    "(?<![\\wÀ-ɏ])(from now on|going forward|in future|in the future|from here on|in (this|the|our) (repo|repository|project|codebase)|(repo|project)[- ]wide|by default|as a rule|our convention|house style|keep using|(we|this repo|this project) (always )?(use|uses|prefer|prefers|support|supports|don't use|do not use|never use)|that goes for every|(that|this) goes for all|(for|to) (all|any) future [\\w-]+|on purpose|deliberately|like the rest of the (log|code|codebase|repo|project)|[\\w-]+s here (are|must|should|need to) )(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(everything|every file|all files|anything) (in|under) [\\w./-]+/',
    '(?<![\\wÀ-ɏ])(ab jetzt|ab sofort|von nun an|künftig|zukünftig|in zukunft|grundsätzlich|in diesem (repo|projekt)|wir (nutzen|verwenden))(?![\\wÀ-ɏ])',
    "(?<![\\wÀ-ɏ])(désormais|à partir de maintenant|à l'avenir|dans ce (dépôt|projet)|on utilise)(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(a partir de ahora|de ahora en adelante|en el futuro|en este (repo|repositorio|proyecto)|usamos)(?![\\wÀ-ɏ])',
    "(?<![\\wÀ-ɏ])(a partir de agora|daqui para frente|neste (repo|repositório|projeto)|d'ora in poi|d'ora in avanti|in questo (repo|repository|progetto)|usiamo)(?![\\wÀ-ɏ])",
    '(?<![\\wÀ-ɏ])(voortaan|vanaf nu|in deze (repo|repository)|we gebruiken)(?![\\wÀ-ɏ])',
    '(?<![\\wÀ-ɏ])(od teraz|odtąd|w tym (repo|repozytorium|projekcie)|używamy)(?![\\wąćęłńóśźż])',
    '(впредь|отныне|с этого момента|в этом (репозитории|репо|проекте))',
    '(以后|今后|往后|以後|今後|在这个仓库|本仓库|這個倉庫|这个项目里|これから|このリポジトリでは|このリポジトリでは常に|앞으로)',
    '(?<![\\wÀ-ɏḀ-ỿ])(från och med nu|hädanefter|framöver|i det här (repot|projektet)|vi använder|fra nu af|fra nå av|fremover|i dette (repo|prosjektet|projekt)|vi bruger|vi bruker|od teď|odteď|napříště|v tomto (repozitáři|projektu)|používáme|bundan sonra|bu (depoda|projede|repoda)|kullanıyoruz|mulai sekarang|ke depannya|di (repo|proyek) ini|kami (pakai|menggunakan)|từ giờ|từ nay|từ bây giờ|về sau|trong (repo|dự án) này|chúng (tôi|ta) dùng)(?![\\wÀ-ɏḀ-ỿ])',
    '(відтепер|надалі|з цього моменту|у цьому (репозиторії|проєкті|проекті)|από τώρα και στο εξής|στο εξής|από (εδώ|δω|τώρα) και (πέρα|μπρος|εμπρός)|σε αυτό το αποθετήριο|अब से|आगे से|इस (रिपो|प्रोजेक्ट) में)',
    ...MORE_LASTING_MARKERS,
    ...WORLD_LASTING_MARKERS,
    ...FAR_LASTING_MARKERS,
  ].join('|'),
  'i',
);

/**
 * Words that make a rule only when they command: "always"/"never" at the head of an imperative clause
 * ("Always run …", "so never touch …"), not in a description ("the job always fails on Mondays"). Words of
 * other languages that are mostly said to command ("immer … benutzen", "必ず", "常に", "每次都", "절대").
 */
const COMMANDING = new RegExp(
  [
    "(^|[,;:—–(]\\s*|\\b(so|and|but|please|pls|then|just|also|and also)\\s+)(always|never|don't ever|do not ever)\\s+\\w+",
    '(?<![\\wÀ-ɏ])(bitte (immer|nie|niemals)|immer\\s+\\S+\\s+(verwenden|benutzen|nutzen|ausführen|laufen lassen)|niemals)(?![\\wÀ-ɏ])',
    '^(toujours|jamais|ne jamais)(?![\\wÀ-ɏ])|^(siempre|nunca)(?![\\wÀ-ɏ])',
    '(每次都|都要|一律|务必|務必|必须|永远不要|不要再)',
    '(必ず|常に|絶対に|毎回)',
    '(항상|절대|매번)',
    '^(всегда|никогда)',
    '^(sempre|mai|non \\w+ mai|altijd|nooit|zawsze|nigdy)(?![\\wÀ-ɏ])',
    '^(alltid|aldrig|altid|aldri|vždy|vždycky|nikdy|her zaman|asla|selalu|jangan pernah|luôn|không bao giờ)(?![\\wÀ-ɏḀ-ỿ])',
    '^(завжди|ніколи|πάντα|ποτέ|हमेशा|कभी)',
    ...MORE_COMMANDING,
    ...WORLD_COMMANDING,
    ...FAR_COMMANDING,
  ].join('|'),
  'i',
);

/**
 * A clause a person typed that states a lasting rule about how to work in this repository (issue 12): a
 * lasting marker anywhere, or a commanding "always/never" (`COMMANDING`); never a clause said for this run
 * (`ONE_OFF`: "this time", "for now", "今回", "这次"), never a question.
 */
export function statesLastingRule(clause: string): boolean {
  const c = clause.trim();
  if (/[?？]\s*$/.test(c) || ONE_OFF.test(c)) return false;
  return LASTING_MARKER.test(c) || COMMANDING.test(c);
}
