import type { Outcome, TranscriptRecord } from '../schema.js';

/**
 * The agent's own words that it did not get the task done: "I could not finish", "was unable to fix", "No pude
 * terminar", "Não consegui concluir", "Je n'ai pas pu terminer", "Ich konnte … nicht abschließen", "Non sono riuscito a
 * completare", "Не удалось исправить", "没有完成", "完了できませんでした", "완료하지 못했" (en, es, pt, fr, de, it, nl,
 * ru, uk, zh, ja, ko). Phrases of not finishing or not fixing only: "failed" alone is what a test run says.
 */
const NOT_FINISHED = new RegExp(
  [
    "\\b(could ?n[o'’]t|(was|were) ?n[o'’]t able to|(was|were) not able to|unable to|did ?n[o'’]t manage to|failed to|can ?n[o'’]t|cannot|can[’']t) (yet )?(finish|complete|fix|resolve|get (it|this|them|the \\w+( \\w+)?) (to )?(pass|work|build))",
    "\\b(task|work|job) (is |was )?(still )?(not|n['’]t) (yet )?(finished|complete|completed|done)\\b|\\bnot (yet )?(finished|completed)\\b|\\bunfinished\\b",
    '\\bno (pude|he podido|logré|conseguí|fue posible|se pudo) (terminar|completar|acabar|arreglar\\p{L}*|resolver\\p{L}*|finalizar|corregir\\p{L}*)',
    '\\bnão (consegui|pude|foi possível) (terminar|concluir|completar|corrigir|resolver|finalizar)',
    "\\bn['’]ai pas (pu|réussi à) (terminer|finir|compléter|corriger|résoudre|achever)|\\bimpossible de (terminer|finir|corriger)",
    '\\bkonnte\\b.{0,40}\\bnicht (abschließen|beenden|fertigstellen|beheben|lösen|reparieren)|\\bnicht fertig',
    '\\bnon (sono riuscit[oa]|ho potuto|è stato possibile) (a )?(completare|finire|terminare|risolvere|correggere)',
    '\\b(kon|kan)\\b.{0,40}\\bniet (afmaken|voltooien|oplossen|afronden|repareren)',
    '(не (смог|смогла|удалось|получилось|вышло) (\\p{L}+ )?(завершить|закончить|доделать|исправить|починить|решить))',
    '(没有完成|没能完成|未能完成|无法完成|未完成|没有修复|没能修复|未能修复|无法修复|沒有完成|無法完成)',
    '(完了できません|完了できませんでした|完了していません|終わりませんでした|終えられませんでした|直せませんでした|修正できませんでした)',
    '(완료하지 못했|끝내지 못했|완료할 수 없|수정하지 못했|고치지 못했)',
  ].join('|'),
  'iu',
);

/** Whether a final message says the agent did not get the task done (`NOT_FINISHED`; the first 2,000 characters). */
export function saysUnfinished(text: string): boolean {
  return NOT_FINISHED.test(text.slice(0, 2000));
}

/**
 * How a run ended, for formats that record no status of their own (Codex, Agents SDK items, Gemini CLI, Claude
 * Code …): fed every body record in order, it tells `completed` unless something says otherwise. `error` when
 * the run ends on the agent's own message saying it did not get the task done (`saysUnfinished`) after a tool
 * result of that task failed: the agent gave up, which phase 1 words as "the agent stopped on purpose".
 * `interrupted` when the file was cut mid-record. An importer's own outcome (an explicit status) wins over both.
 */
export class EndWatch {
  private final: string | undefined;
  private failedSinceUser = false;

  /** One body record, in order. */
  see(record: TranscriptRecord): void {
    if (record.type === 'message') {
      if (record.role === 'user') {
        this.final = undefined;
        this.failedSinceUser = false;
      } else this.final = record.text.slice(0, 2000);
    } else if (record.type === 'tool_call') this.final = undefined;
    else if (record.type === 'tool_result') {
      this.final = undefined;
      if (record.isError) this.failedSinceUser = true;
    }
  }

  /** The outcome: the importer's (`stated`) when it has one, else what the records showed. */
  outcome(stated: Outcome | undefined, cutAtEnd: boolean): Outcome {
    if (stated) return stated;
    if (cutAtEnd) return 'interrupted';
    return this.final !== undefined && this.failedSinceUser && saysUnfinished(this.final) ? 'error' : 'completed';
  }
}
