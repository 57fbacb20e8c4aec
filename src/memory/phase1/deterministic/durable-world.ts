/**
 * The word lists of `durable.ts` in the languages neither it nor `durable-more.ts` has: Icelandic, Welsh, Irish,
 * Maltese, Albanian, Basque, Galician, Afrikaans, Azerbaijani, Uzbek, Kazakh, Macedonian, Serbian (Cyrillic),
 * Belarusian, Georgian, Armenian, Mongolian, Urdu, Marathi, Nepali, Gujarati, Punjabi, Tamil, Telugu, Kannada,
 * Malayalam, Sinhala, Amharic, Estonian word orders (`ei kasuta enam`), Burmese, Khmer, Lao, Bengali and (for "no
 * longer" only) Asturian, Swahili and Yoruba.
 * A person writes to an agent in their own language; these are closed-class words only (time, scope, "always",
 * "never", "this time", "no longer"): they decide the kind of a sentence, never its lesson.
 */

/** Letters of Latin-script words, so that a word list does not match inside a longer word. */
const L = 'À-ɏḀ-ỿ';
const latin = (words: string) => `(?<![\\w${L}])(${words})(?![\\w${L}])`;

/** Time, scope and convention markers ("from now on", "in this repo", "we use"). */
export const WORLD_LASTING_MARKERS = [
  latin(
    [
      'héðan í frá|framvegis|í framtíðinni|í þessari geymslu|í þessu (verkefni|repói)|við notum',
      'o hyn ymlaen|yn y dyfodol|yn y (repo|prosiect) hwn|rydyn ni.n defnyddio',
      'as seo amach|feasta|sa (stór|tionscadal) seo|úsáidimid',
      "minn issa 'l quddiem|minn issa l-quddiem|f'dan ir-(repo|proġett)|nużaw",
      'nga tani e tutje|tani e tutje|në të ardhmen|në këtë (repo|projekt|depo)|ne përdorim',
      'hemendik aurrera|aurrerantzean|biltegi honetan|proiektu honetan|erabiltzen dugu',
      'de agora en diante|neste repositorio|usamos sempre',
      'van nou af|van nou af aan|in hierdie (repo|projek)|ons gebruik',
      'bundan belə|bu (repoda|layihədə)|istifadə edirik',
      'bundan buyon|endi doim|shu (repoda|loyihada)|ishlatamiz',
    ].join('|'),
  ),
  '(бұдан былай|осы (репода|жобада)|отсега|од сега натаму|во ова (репо|складиште)|убудуће|у овом (репозиторијуму|пројекту)|надалей|з гэтага часу|у гэтым (рэпазіторыі|праекце)|ამიერიდან|ამიერიდგან|ამ (რეპოში|პროექტში)|այսուհետ|այսուհետև|այս (ռեպոյում|նախագծում)|одооноос хойш|энэ (репод|төсөлд))',
  '(آئندہ|اب سے|اس (ریپو|پروجیکٹ) میں|یہ ہمارا اصول|यापुढे|आतापासून|या (रेपो|प्रोजेक्ट)मध्ये|अबदेखि|अब उप्रान्त|હવેથી|હવે પછી|આ (રેપો|પ્રોજેક્ટ)માં|ਹੁਣ ਤੋਂ|ਅੱਗੇ ਤੋਂ|இனிமேல்|இனி மேல்|இந்த (repo|ரெப்போ|திட்டத்தில்)|ఇకపై|ఇక నుండి|ఈ (రెపోలో|ప్రాజెక్ట్‌లో)|ಇನ್ನು ಮುಂದೆ|ಇನ್ಮುಂದೆ|ಈ (ರೆಪೋದಲ್ಲಿ|ಪ್ರಾಜೆಕ್ಟ್‌ನಲ್ಲಿ)|ഇനി മുതൽ|ഇനിമുതൽ|ഈ (റിപ്പോയിൽ|പ്രോജക്റ്റിൽ)|මෙතැන් සිට|මින් ඉදිරියට|ከአሁን በኋላ|ከዛሬ ጀምሮ|ယခုမှစ၍|ពីពេលនេះតទៅ|ຕໍ່ຈາກນີ້)',
];

/** "Always" / "never" commanding at the head of a clause (or anywhere, in scripts where "always" is rarely descriptive). */
export const WORLD_COMMANDING = [
  `^(alltaf|aldrei|bob amser|byth|i gcónaí|riamh|dejjem|qatt|gjithmonë|kurrë|mos .{1,40} kurrë|beti|inoiz ez|altyd|həmişə|heç vaxt|har doim|doimo|hech qachon)(?![\\w${L}])`,
  '^(әрқашан|ешқашан|секогаш|никогаш|увек|никад|заўсёды|ніколі|ყოველთვის|არასოდეს|երբեք|միշտ|үргэлж|хэзээ ч)',
  '(ہمیشہ|کبھی نہیں|کبھی بھی نہ|नेहमी|कधीही|सधैं|કાયમ|હંમેશા|ਹਮੇਸ਼ਾ|எப்போதும்|ஒருபோதும்|ఎల్లప్పుడూ|ಯಾವಾಗಲೂ|എപ്പോഴും|ഒരിക്കലും|සැමවිටම|ሁልጊዜ|အမြဲတမ်း|ជានិច្ច|ສະເໝີ)',
];

/** Said for this run only ("this time", "for now"). */
export const WORLD_ONE_OFF = [
  latin(
    'í þetta (skiptið|sinn)|í bili|að sinni|y tro hwn|am y tro|an uair seo|faoi láthair|din id-darba|għalissa|këtë herë|për momentin|tani për tani|oraingoan|oraingo honetan|oraingoz|polo de agora|hierdie keer|vir nou|bu dəfə|hələlik|bu safar|hozircha',
  ),
  '(бұл жолы|әзірге|овој пат|засега|овај пут|за сада|гэтым разам|пакуль што|ამჯერად|ჯერჯერობით|այս անգամ|առայժմ|энэ удаад|одоохондоо|اس بار|فی الحال|ابھی کے لیے|या वेळी|सध्या|यस पटक|अहिलेलाई|આ વખતે|હાલ પૂરતું|ਇਸ ਵਾਰ|ਫ਼ਿਲਹਾਲ|இந்த முறை|இப்போதைக்கு|ఈసారి|ప్రస్తుతానికి|ಈ ಬಾರಿ|ಸದ್ಯಕ್ಕೆ|ഇത്തവണ|തൽക്കാലം|මේ පාර|දැනට|በዚህ ጊዜ|ለአሁን)',
];

/** "We switched to …", "no longer …": the repository changed. */
export const WORLD_CHANGED = [
  latin(
    'ekki lengur|skiptum yfir í|fluttum yfir í|mwyach|a thuilleadh|nuk e përdorim më|nuk përdorim më|nuk nevojitet më|nuk është më|e kemi kaluar|kaluam në|ez da jada|jada ez|ez dugu gehiago|ez dugu jada|migratu dugu|aldatu dugu|xa non|nie meer nie|oorgeskakel na|artıq istifadə etmirik|artıq lazım deyil|keçdik|endi ishlatmaymiz|endi kerak emas|ei kasuta enam|ei ole enam|pole enam|ei vaja enam|yá nun|ya nun|haihitajiki tena|hazihitajiki tena|haipo tena|hakuna tena|kò sí mọ́|kò nílò mọ́|a kò lò mọ́',
  ),
  '(енді қолданбаймыз|көштік|повеќе не|веће не|више не користимо|больш не|ужо не|აღარ|այլևս|այլեւս|ашиглахаа больсон|اب استعمال نہیں|اب ضرورت نہیں|منتقل ہو گئے|منتقل کر دیا|आता वापरत नाही|आता गरज नाही|अब प्रयोग गर्दैनौं|હવે ઉપયોગ નથી|હવે જરૂર નથી|હવે જરૂરી નથી|আর দরকার নেই|আর প্রয়োজন নেই|আর ব্যবহার করি না|ਹੁਣ ਲੋੜ ਨਹੀਂ|ఇక అవసరం లేదు|ಇನ್ನು ಅಗತ್ಯವಿಲ್ಲ|ഇനി ആവശ്യമില്ല|ഇനി[^.\n]{0,80}േണ്ടതില്ല|ਹੁਣ ਨਹੀਂ ਵਰਤਦੇ|இனி பயன்படுத்துவதில்லை|இனி தேவையில்லை|மாறிவிட்டோம்|ఇక వాడటం లేదు|ಇನ್ನು ಬಳಸುವುದಿಲ್ಲ|ഇനി ഉപയോഗിക്കുന്നില്ല|තවදුරටත් භාවිතා නොකරමු|ከእንግዲህ አንጠቀምም)',
];
