/**
 * The word lists of `durable.ts` in languages none of its lists has: Tajik, Kyrgyz, Tatar, Turkmen, Haitian
 * Creole, Malagasy, Somali, Hausa, Zulu, Xhosa, Kinyarwanda, Samoan, Hawaiian, Faroese, Breton,
 * Occitan, and Kannada's "ever"/"from now on". A rule said in one of them beside a one-off order was lost and the
 * one-off kept as the task. Closed-class words only (time, scope, "always", "never", "this time", "for now"): they
 * decide the kind of a sentence, never its lesson.
 */

/** Letters of Latin-script words, so that a word list does not match inside a longer word. */
const L = 'À-ɏḀ-ỿ';
const latin = (words: string) => `(?<![\\w${L}])(${words})(?![\\w${L}])`;

/** Time, scope and convention markers ("from now on", "in this repo", "for the whole repo"). */
export const FAR_LASTING_MARKERS = [
  latin(
    [
      'mundan beýläk|şu (repoda|taslamada)',
      'apati (kounye a|jodi a)|depi kounye a|pou tout depo a|nan depo sa a|pou tout pwojè a',
      "manomboka izao|hatramin'izao ka hatrany|amin'ity (repo|tetikasa) ity",
      'hadda kadib|hadda wixii ka dambeeya|repo-gan oo dhan',
      'daga yanzu( zuwa gaba)?|a wannan (repo|aikin)',
      'kusukela manje|ukususela ngoku|ukusukela ngoku',
      'guhera ubu|kuva ubu',
      'mai le taimi nei|mai kēia manawa aku|ma kēia (waihona|papahana)',
      'frá nú av|í hesum (repo|verkætlan)',
      'a-hiviziken|en (repo|raktres) - ?mañ',
      "a partir d'ara|dins aqueste (repo|projècte)",
    ].join('|'),
  ),
  '(аз ин ба баъд|минбаъд|дар ин (анбор|лоиҳа|репо)|мындан ары|мындан кийин|бул (репода|долбоордо)|моннан соң|бүгеннән башлап|бу (репода|проектта)|ಇನ್ನು ಮುಂದೆ|ಶಾಶ್ವತ ನಿಯಮ)',
];

/** "Always" / "never" commanding at the head of a clause, or anywhere in scripts where they rarely describe. */
export const FAR_COMMANDING = [
  `^(toujou|pa janm|pinga janm|foana|aza mihitsy|mar walba|weligaa ha|ko yaushe|kada ka taɓa|njalo|ungalokothi|rhoqo|ungaze|buri gihe|ntuzigere|i taimi uma|aua lava|i nā manawa a pau|altíð|ongantíð|atav|morse|totjorn|jamai)(?![\\w${L}])`,
  '^(ҳамеша|ҳеҷ гоҳ|дайыма|ар дайым|эч качан|һәрвакыт|беркайчан да)',
  '(ಯಾವತ್ತೂ|ಯಾವಾಗಲೂ|ಎಂದಿಗೂ)',
];

/** Said for this run only ("this time", "for now"). */
export const FAR_ONE_OFF = [
  latin(
    [
      'bu gezek|häzirlikçe',
      'pou kounye a|fwa sa a|pou yon ti tan',
      "amin'ity indray mitoraka ity|amin'izao fotoana izao",
      'markan oo keliya|wakhtigan',
      'wannan karon|na ɗan lokaci',
      'kulokhu|okwamanje|ngeli xesha|okwangoku',
      "kuri iyi nshuro|by'agateganyo",
      'mo le taimi nei|i kēia manawa wale nō',
      'hesaferð|í løtuni',
      'ar wech-mañ|evit ar mare',
      'aqueste còp|per ara',
    ].join('|'),
  ),
  '(ин дафъа|ин бор|фаълан|бул жолу|азырынча|бу юлы|әлегә|ಈ ಬಾರಿ|ಸದ್ಯಕ್ಕೆ)',
];
