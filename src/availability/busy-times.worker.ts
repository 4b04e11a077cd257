import { busyTimes, NotACalendar, type BusyInterval } from "./busy-times";

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

export type ExpandAnswer = { ok: true; times: BusyInterval[] } | { ok: false; notCalendar: boolean; detail: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<ExpandRequest>) => {
  const { text, zone, from } = event.data;
  let answer: ExpandAnswer;
  try {
    answer = { ok: true, times: busyTimes(text, zone, from) };
  } catch (err) {
    answer = { ok: false, notCalendar: err instanceof NotACalendar, detail: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
