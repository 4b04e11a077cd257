import { isDomainError } from "../../lib/domain-error";
import type { MessageKey } from "../../lib/i18n";
import { busyTimes, type BusyInterval } from "./busy-times";

/**
 * The thread that turns an outside calendar's text into busy times (decision 0043). ical.js can
 * loop for ever inside one step of a rule that never matches (every 30 February), which no count
 * of steps can stop; here that holds only this thread, which the server ends when its time is up.
 * One calendar per thread: the server starts a new one for each read.
 */

export interface ExpandRequest {
  text: string;
  zone: string;
  from: number;
}

/**
 * The thread's answer (a message between threads carries data, not errors): the busy times; or
 * the refusal of the text (a calendar that is not one), by its key, with what went wrong for the
 * log; or a failure of ours, with what it said.
 */
export type ExpandAnswer = { times: BusyInterval[] } | { refused: MessageKey; detail: string } | { failed: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<ExpandRequest>) => {
  const { text, zone, from } = event.data;
  let answer: ExpandAnswer;
  try {
    answer = { times: busyTimes(text, zone, from) };
  } catch (err) {
    answer = isDomainError(err) ? { refused: err.key, detail: err.message } : { failed: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
