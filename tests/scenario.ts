/**
 * A request and what its answer must be, written as one row of a table: who sends it, the method,
 * the address and the body, then the status, the text and the JSON the answer must have, and
 * what must not change. `scenarios(target, rows)` makes each row a test of its own (in order,
 * in the describe block around the call); `scenario(target, row)` checks one row inside a test
 * and hands back the answer.
 *
 *   scenarios(() => ({ app: t, callers: clients, fixtures }), [
 *     { as: "stranger", method: "PATCH", url: (f) => `/api/activities/${f.activity.id}`, body: { title: "Mine" }, status: 404 },
 *     { name: "a visitor is asked to sign in", url: "/api/bookings", status: 401, json: { message: "Please sign in to continue." } },
 *   ]);
 *
 * The target is asked for as each row runs, as the app, its people and their ids are made in
 * `beforeAll`; `() => t` (the test app alone) does when each row names its caller as a client.
 * A row that needs a fresh state (a new person, a booking in some status) makes it in `before`,
 * and its `url`, `body` and `as` may be functions that read what `before` made.
 *
 * Requests go through the test app's `Client` (tests/helpers.ts), so they are sent as our pages
 * send them: same-origin, with the caller's cookies and CSRF token.
 */
import { expect, test } from "bun:test";
import type { Client } from "./helpers";

/** A value, or how to make it from the fixtures when the row runs (ids made in `beforeAll`). */
export type Lazy<T, F> = T | ((fixtures: F) => T);
/** What a JSON body or answer may be (`undefined` inside, where a key is to be left out). */
export type JsonValue = string | number | boolean | null | object;

/** Where the rows are sent, asked for when each row runs (it is made in `beforeAll`). */
export interface ScenarioTarget<F = undefined> {
  /** The test app (`makeTestApp`): a row without `as` is sent by a new visitor of it. */
  app: { client(): Client };
  /** The callers a row names in `as`. */
  callers?: Record<string, Client>;
  /** What `url`, `body`, `form`, `json` and the hooks are made from. */
  fixtures?: F;
}

export interface Scenario<F = undefined> {
  /** The test's name; by default who sends what where, with each fixture shown as `:name`. */
  name?: string;
  /** One of the target's callers by name, a client, or (left out) a new visitor without cookies. */
  as?: string | Client | ((fixtures: F) => Client);
  /** GET unless said. */
  method?: string;
  url: Lazy<string, F>;
  /**
   * Sent as JSON, as the islands call the API. A write (not GET or HEAD) without `body` or
   * `form` sends `{}`.
   */
  body?: Lazy<JsonValue, F>;
  /** Sent as a form post from one of our pages: urlencoded, with the CSRF token as the hidden field. */
  form?: Lazy<Record<string, string>, F>;
  headers?: Record<string, string>;
  /** `false`: a write without the caller's CSRF token. */
  csrf?: false;
  /** The status; one of a list; or a rule the status must meet. */
  status: number | readonly number[] | ((status: number) => boolean);
  /** Text the answer contains, each as written (an HTML answer escapes `'` as `&#39;`: see `inHtml`). */
  contains?: string | readonly string[];
  /** Text the answer must not contain. */
  notContains?: string | readonly string[];
  /**
   * The answer is JSON holding at least this (`toMatchObject`, so `expect.any(String)` and the
   * like work); a top-level key given as `undefined` must be absent.
   */
  json?: Lazy<JsonValue, F>;
  /** Runs before anything else: puts the state the row needs in place. */
  before?: (fixtures: F) => unknown;
  /** A read of what the request must leave as it was: taken before the request and after, and compared. */
  unchanged?: (fixtures: F) => unknown;
  /** More checks, after the others. */
  after?: (answer: Answer, fixtures: F) => unknown;
  /** The test's timeout, when the row needs more than the file's default. */
  timeout?: number;
}

/** What a row's request answered: the response, its status and its text, already read. */
export interface Answer {
  res: Response;
  status: number;
  text: string;
  /** The text parsed as JSON. */
  json<T = Record<string, unknown>>(): T;
}

/** The target, or the test app alone (its visitors send every row), or a function answering either. */
type TargetOf<F> = ScenarioTarget<F> | ScenarioTarget<F>["app"] | (() => ScenarioTarget<F> | ScenarioTarget<F>["app"]);

/** Text as our views write it in HTML (the characters the html runtime escapes). */
export const inHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** A value as JSON for a row's name, long strings cut short (`"xxxxxxxxxxxx…" (501)`). */
export const shown = (value: unknown) =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === "string" && v.length > 40 ? `${v.slice(0, 12)}… (${v.length})` : v)) ?? String(value);

/** Each row as a test of its own, in order. */
export function scenarios<F = undefined>(target: TargetOf<F>, rows: readonly Scenario<F>[]) {
  for (const row of rows) {
    test(nameOf(row), async () => void (await scenario(target, row)), row.timeout);
  }
}

/** Sends one row's request now and checks its answer; hands the answer back for more checks. */
export async function scenario<F = undefined>(target: TargetOf<F>, row: Scenario<F>): Promise<Answer> {
  const given = typeof target === "function" ? target() : target;
  const { app, callers = {}, fixtures } = "client" in given ? ({ app: given } as ScenarioTarget<F>) : given;
  const f = fixtures as F;
  const made = <T>(value: Lazy<T, F>): T => (typeof value === "function" ? (value as (f: F) => T)(f) : value);
  await row.before?.(f);
  const client = caller(row.as, callers, f) ?? app.client();
  const method = (row.method ?? "GET").toUpperCase();
  const url = made(row.url);
  const where = `${method} ${url}${typeof row.as === "string" ? ` as ${row.as}` : ""}`;
  const kept = row.unchanged ? await row.unchanged(f) : undefined;

  const writes = method !== "GET" && method !== "HEAD";
  const headers = row.headers ?? {};
  let res: Response;
  if (row.form !== undefined) {
    const form = made(row.form);
    res = await client.request(url, { method, headers, form: client.csrf && row.csrf !== false ? { _csrf: client.csrf, ...form } : form, csrf: false });
  } else {
    const body = row.body !== undefined ? made(row.body) : writes ? {} : undefined;
    res = await client.request(url, { method, headers, json: body, ...(row.csrf === false ? { csrf: false as const } : {}) });
  }
  const text = method === "HEAD" ? "" : await res.text();
  const answer: Answer = {
    res,
    status: res.status,
    text,
    json<T>() {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new Error(`${where} answered ${res.status} with no JSON: ${text.slice(0, 300)}`);
      }
    },
  };

  const expected = row.status;
  const statusOk = typeof expected === "number" ? res.status === expected : typeof expected === "function" ? expected(res.status) : expected.includes(res.status);
  // On a wrong status the answer's beginning is shown too: it usually says why.
  const wanted = typeof expected === "number" ? expected : typeof expected === "function" ? "a status the row's rule allows" : `one of ${expected.join(", ")}`;
  const shown = statusOk ? undefined : text.slice(0, 400);
  expect({ row: row.name, request: where, status: res.status as number | string, answer: shown }).toEqual({ row: row.name, request: where, status: statusOk ? res.status : wanted, answer: shown });

  for (const part of list(row.contains)) expect(text).toContain(part);
  for (const part of list(row.notContains)) expect(text).not.toContain(part);
  if (row.json !== undefined) {
    const pattern = made(row.json);
    const got = answer.json<unknown>();
    if (pattern && typeof pattern === "object" && !Array.isArray(pattern)) {
      const entries = Object.entries(pattern as Record<string, unknown>);
      const absent = entries.filter(([, v]) => v === undefined).map(([k]) => k);
      const present = Object.fromEntries(entries.filter(([, v]) => v !== undefined));
      expect(got).toMatchObject(present);
      const gotKeys = Object.keys((got ?? {}) as Record<string, unknown>);
      expect({ request: where, absent: absent.filter((k) => gotKeys.includes(k)) }).toEqual({ request: where, absent: [] });
    } else {
      expect(got).toMatchObject(pattern as never);
    }
  }
  if (row.unchanged) expect(await row.unchanged(f)).toEqual(kept);
  await row.after?.(answer, f);
  return answer;
}

function caller<F>(as: Scenario<F>["as"], callers: Record<string, Client>, f: F): Client | undefined {
  if (as === undefined) return undefined;
  if (typeof as === "string") {
    const found = callers[as];
    if (!found) throw new Error(`no caller named "${as}" (the target has ${Object.keys(callers).join(", ") || "none"})`);
    return found;
  }
  return typeof as === "function" ? as(f) : as;
}

const list = (value: string | readonly string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === "string" ? [value] : value);

/** A row's name: given, or "<who> <METHOD> <url>" with the fixtures shown as `:activity`, `:booking`… */
function nameOf<F>(row: Scenario<F>): string {
  if (row.name) return row.name;
  const who = typeof row.as === "string" ? row.as : row.as === undefined ? "visitor" : "caller";
  const url = typeof row.url === "function" ? row.url(placeholders() as F) : row.url;
  return `${who} ${(row.method ?? "GET").toUpperCase()} ${url}`;
}

/**
 * Fixtures that name themselves: `f.activity.id` in a template string reads `:activity`, so a
 * row's address can be shown before the fixtures exist.
 */
function placeholders(path: string[] = []): unknown {
  return new Proxy(() => {}, {
    get(_, key) {
      if (key === Symbol.toPrimitive || key === "toString") return () => `:${path[0] ?? "fixture"}`;
      if (typeof key === "symbol") return undefined;
      return placeholders([...path, key]);
    },
  });
}
