/**
 * The word lists of `durable.ts` in more languages: Finnish, Malay, Romanian, Slovenian, Hebrew, Catalan, Thai,
 * Hungarian, Slovak, Croatian/Serbian/Bosnian, Bulgarian, Estonian, Latvian, Lithuanian, Arabic, Persian,
 * Bengali, Tagalog and Swahili. A person writes to an agent in their own language; a rule that knows only
 * twenty of them keeps the rest's one-off orders and loses their lasting ones. Closed-class words only (time,
 * scope, "always", "never", "this time", "no longer"): they decide the kind of a sentence, never its lesson.
 */

/** Letters of Latin-script words, so that a word list does not match inside a longer word. */
const L = 'À-ɏḀ-ỿ';
const latin = (words: string) => `(?<![\\w${L}])(${words})(?![\\w${L}])`;

/** Time, scope and convention markers ("from now on", "in this repo", "we use"). */
export const MORE_LASTING_MARKERS = [
  latin(
    [
      'tästä lähtien|jatkossa|tästedes|tässä (repossa|repositoriossa|projektissa)|käytämme',
      'mulai dari sekarang|mulai hari ini|dalam (repo|projek) ini|kami guna|kita guna',
      'de acum înainte|de acum inainte|de-acum|pe viitor|în (acest|repo-ul|proiectul) (repo|depozit|proiect|ăsta|acesta)|folosim',
      'od zdaj naprej|odslej|v tem (repozitoriju|projektu|repu)|uporabljamo',
      "a partir d'ara|d'ara endavant|en aquest (repo|repositori|projecte)|fem servir|utilitzem",
      'mostantól|ezentúl|a jövőben|ebben a (repóban|repoban|projektben)|használjuk',
      'odteraz|v tomto (repozitári|projekte)|používame',
      'od sada|ubuduće|ubuduce|u ovom (repozitoriju|repou|projektu)|koristimo',
      'edaspidi|nüüdsest|selles (repos|projektis)|kasutame',
      'turpmāk|no šī brīža|šajā (repo|projektā)|mēs izmantojam',
      'nuo šiol|ateityje|šiame (repo|projekte)|naudojame',
      'mula ngayon|sa repo na ito|gumagamit kami',
      'kuanzia sasa|katika repo hii|tunatumia',
    ].join('|'),
  ),
  '(מעכשיו|מהיום והלאה|מעתה|מכאן והלאה|בריפו הזה|בפרויקט הזה|אנחנו משתמשים|ต่อไปนี้|จากนี้ไป|ตั้งแต่นี้|ในรีโปนี้|ในโปรเจกต์นี้|เราใช้|отсега нататък|занапред|в това (хранилище|репо)|използваме|من الآن فصاعد|في هذا المستودع|في هذا المشروع|نستخدم|از این به بعد|از حالا به بعد|در این مخزن|در این پروژه|এখন থেকে|এই রিপোতে|এই প্রজেক্টে)',
];

/** "Always" / "never" commanding at the head of a clause. */
export const MORE_COMMANDING = [
  `^(aina|älä koskaan|ei koskaan|sentiasa|jangan sesekali|întotdeauna|mereu|niciodată|vedno|nikoli|sempre|mai|mindig|soha|sose|vždy|nikdy|uvijek|uvek|nikad|nikada|alati|mitte kunagi|vienmēr|nekad|visada|niekada|palaging|laging|huwag kailanman|daima|kamwe|kila mara)(?![\\w${L}])`,
  '^(תמיד|אף פעם|לעולם אל|винаги|никога|دائما|دائمًا|أبدا|همیشه|هرگز|সবসময়|কখনো)',
  '(เสมอ|ทุกครั้ง|ห้าม)',
];

/** Said for this run only ("this time", "for now"). */
export const MORE_ONE_OFF = [
  latin(
    'tällä kertaa|toistaiseksi|buat masa ini|de data asta|deocamdată|pentru moment|tokrat|zaenkrat|aquesta vegada|per ara|ezúttal|most az egyszer|egyelőre|tentoraz|zatiaľ|ovaj put|za sada|zasad|seekord|esialgu|šoreiz|pagaidām|šį kartą|kol kas|ngayon lang|sa ngayon|safari hii|kwa sasa',
  ),
  '(הפעם|לעת עתה|בינתיים|ครั้งนี้|ชั่วคราว|този път|засега|هذه المرة|في الوقت الحالي|مؤقتا|این بار|فعلا|فعلاً|এইবার)',
];

/** "We switched to …", "no longer …": the repository changed. */
export const MORE_CHANGED = [
  latin(
    'siirryttiin|vaihdettiin|siirryimme|ei enää|emme enää|bertukar ke|tidak lagi|sudah tidak|am trecut la|am migrat|nu mai|prešli smo na|ne uporabljamo več|ni več|hem passat a|hem migrat|ja no|átálltunk|áttértünk|már nem|lecseréltük|prešli sme na|už nepoužívame|više ne|läksime üle|enam ei|pārgājām uz|vairs ne|perėjome prie|nebenaudojame|lumipat kami sa|hindi na|tumehamia|hatutumii tena',
  ),
  '(עברנו ל|כבר לא|הוחלף ב|เปลี่ยนไปใช้|ย้ายไป|ไม่ใช้แล้ว|ไม่ได้ใช้แล้ว|преминахме към|вече не|انتقلنا إلى|لم نعد|لم يعد|مهاجرت کردیم|دیگر از)',
];
