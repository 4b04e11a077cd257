/**
 * Kept parts (lib/html/fragments.ts) are rendered once and sent to everyone whose page has
 * their key: nothing of one person may reach another through them. Two signed-in people and a
 * visitor ask for the same pages in turn; no one's name, email, username or CSRF token is in
 * anyone else's answer, each one's own is where it belongs, and the two people's pages are the
 * same bytes apart from their own parts (the CSRF token, the unread badge).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { writeTransaction } from "../db/client";
import { activities, bookings, messages } from "../db/schema";
import { CSRF_SLOT, expandText, pageBytes, remember, rememberAround, type KeptAround, type KeptParts } from "../lib/html/fragments";
import type { KeptFormView, KeptView, View } from "../src/shell/view";
import { makeTestApp, TENNIS, type Client } from "./helpers";

interface Person {
  client: Client;
  firstName: string;
  lastName: string;
  username: string;
  email: string;
  id: string;
}

let t: Awaited<ReturnType<typeof makeTestApp>>;
let ana: Person;
let ben: Person;
let visitor: Client;
let activityId: string;
let hostUsername: string;

async function person(firstName: string, lastName: string, username: string): Promise<Person> {
  const client = t.client();
  const email = `${username}.mail@example.com`;
  const { user } = await client.signUpComplete({ email, firstName, lastName, username });
  return { client, firstName, lastName, username, email, id: user.id };
}

/** What must never be in another person's answer. */
const secretsOf = (p: Person) => [p.firstName, p.lastName, p.username, p.email, p.client.csrf];

beforeAll(async () => {
  t = await makeTestApp();
  // Ana and Ben first: when this file runs alone, their pages are the first to render the parts
  // kept for the whole process (the document's, the navigation's).
  ana = await person("Anastasia", "Kowalczyk", "anakowalczyk");
  ben = await person("Bartholomew", "Oyelaran", "bartoyelaran");
  visitor = t.client();
  const host = t.client();
  hostUsername = "keptparthost";
  const hostId = (await host.signUpComplete({ firstName: "Hortensia", username: hostUsername })).user.id;
  const res = await host.postJson("/api/activities", TENNIS);
  expect(res.status).toBe(201);
  activityId = ((await res.json()) as { id: string }).id;
  // Ana has one unread conversation (the host wrote last): her navigation shows a badge, Ben's does not.
  const now = Date.now();
  const bookingId = crypto.randomUUID();
  await writeTransaction(t.db, async (tx) => {
    await tx
      .insert(bookings)
      .values({
        id: bookingId,
        guestId: ana.id,
        hostId,
        activityId,
        status: "pending",
        startsAtLocal: "2030-01-02T10:00:00",
        timeZone: "America/New_York",
        startsAt: now + 86_400_000,
        endsAt: now + 90_000_000,
        durationMinutes: 60,
        hourlyRateCents: 4000,
        subtotalCents: 4000,
        serviceFeeCents: 400,
        totalCents: 4400,
        platformFeeCents: 400,
        hostEarningsCents: 3600,
        respondBy: now + 86_400_000,
      });
    await tx.insert(messages).values({ id: crypto.randomUUID(), bookingId, senderId: hostId, content: "See you at the courts", readBy: [] });
  });
});
afterAll(() => t.cleanup());

/**
 * A change to the database: the browse and activity pages are read again, so their kept bodies
 * and cards are rendered again, by whoever asks next.
 */
const touch = async () => await writeTransaction(t.db, (tx) => tx.update(activities).set({ description: TENNIS.description }).where(eq(activities.id, activityId)));

/** The pages that show kept parts: the document's and the navigation's on all of them. */
const SHARED_PAGES = () => [
  "/",
  "/browse?city=New%20York",
  "/browse?city=New%20York&category=sports&filters=1",
  `/activity/${activityId}`,
  `/profile/${hostUsername}`,
  "/host",
];
/** Pages that are each person's own: they differ between people, but still hold nothing of the other. */
const OWN_PAGES = ["/profile", "/bookings"];
/** What htmx asks for on a filter change: the browse body alone, kept whole. */
const HX = { "hx-request": "true", "hx-target": "browse" };

async function fetchPage(c: Client, path: string, headers: HeadersInit = {}) {
  const res = await c.get(path, headers);
  expect(res.headers.get("content-encoding")).toBeNull();
  return { status: res.status, html: await res.text() };
}

const badgeOf = (html: string) => html.match(/<span class="nav-badge" data-unread-badge aria-hidden="true">[^<]*<\/span>/)?.[0];
const unreadTextOf = (html: string) => html.match(/<span class="sr-only">\(\d+\+? unread\)<\/span>/)?.[0];

/** A person's page with their own parts taken out: their CSRF token and their unread badge. */
function withoutOwnParts(html: string, p: Person) {
  let out = html.replaceAll(p.client.csrf, "TOKEN");
  for (const own of [badgeOf(out), unreadTextOf(out)]) if (own) out = out.replace(own, "");
  return out;
}

function expectNothingOf(html: string, ...others: Person[]) {
  for (const other of others) {
    for (const secret of secretsOf(other)) {
      const at = html.indexOf(secret);
      expect(at < 0 ? null : `${other.username}'s ${JSON.stringify(secret)} in …${html.slice(Math.max(0, at - 120), at + 120)}…`).toBeNull();
    }
  }
}

describe("kept parts hold nothing of a person", () => {
  test("the people have distinct secrets and tokens", () => {
    expect(ana.client.csrf).toBeTruthy();
    expect(ben.client.csrf).toBeTruthy();
    expect(ana.client.csrf).not.toBe(ben.client.csrf);
  });

  test("shared pages, asked for in turn by two people and a visitor, show each only their own", async () => {
    const seen = new Map<string, string>();
    // First Ana, the visitor, Ben; then the other way round: whoever comes first renders the kept parts.
    const rounds: ("ana" | "ben" | "visitor")[][] = [
      ["ana", "visitor", "ben"],
      ["ben", "visitor", "ana"],
    ];
    for (const [round, order] of rounds.entries()) {
      await touch();
      for (const path of SHARED_PAGES()) {
        for (const who of order) {
          const client = who === "ana" ? ana.client : who === "ben" ? ben.client : visitor;
          const { status, html } = await fetchPage(client, path);
          expect(status, `${who} ${path}`).toBe(200);
          if (who === "visitor") {
            expectNothingOf(html, ana, ben);
            expect(html).not.toContain("data-unread-badge");
          } else {
            const [me, other] = who === "ana" ? [ana, ben] : [ben, ana];
            expectNothingOf(html, other);
            // The person's own token is in the page (meta and htmx headers), and in every form's hidden field.
            expect(html).toContain(`<meta name="csrf-token" content="${me.client.csrf}"`);
            for (const [, value] of html.matchAll(/name="_csrf" value="([^"]*)"/g)) expect(value).toBe(me.client.csrf);
            // Only Ana has an unread conversation: her badge, never Ben's.
            if (me === ana) {
              expect(badgeOf(html), path).toBe('<span class="nav-badge" data-unread-badge aria-hidden="true">1</span>');
              expect(unreadTextOf(html), path).toBe('<span class="sr-only">(1 unread)</span>');
            } else {
              expect(html).not.toContain("data-unread-badge");
              expect(unreadTextOf(html)).toBeUndefined();
            }
          }
          // The same person's same page is the same the second time round, whoever asked in between.
          const key = `${who}\u0000${path}`;
          if (round === 0) seen.set(key, html);
          else expect(html, `${who} ${path} again`).toBe(seen.get(key)!);
        }
      }
    }
    // The two people's pages are the same bytes apart from their own parts.
    for (const path of SHARED_PAGES()) {
      const a = withoutOwnParts(seen.get(`ana\u0000${path}`)!, ana);
      const b = withoutOwnParts(seen.get(`ben\u0000${path}`)!, ben);
      expect(a, path).toBe(b);
    }
  });

  test("the activity page's forms carry the asker's own token, its report form its own path", async () => {
    for (const p of [ben, ana, ben]) {
      const { html } = await fetchPage(p.client, `/activity/${activityId}`);
      const tokens = [...html.matchAll(/name="_csrf" value="([^"]*)"/g)].map((m) => m[1]);
      expect(tokens.length).toBeGreaterThanOrEqual(2);
      expect(new Set(tokens)).toEqual(new Set([p.client.csrf]));
      expect(html).toContain(`name="next" value="/activity/${activityId}"`);
      expect(html).not.toContain(CSRF_SLOT);
    }
  });

  test("the browse body htmx swaps is the same for both people and holds neither", async () => {
    const bodies: string[] = [];
    for (const p of [ana, ben, ana]) {
      const { status, html } = await fetchPage(p.client, "/browse?city=New%20York", HX);
      expect(status).toBe(200);
      expect(html).toStartWith('<div id="browse">');
      expectNothingOf(html, ana, ben);
      bodies.push(html);
    }
    expect(bodies[1]).toBe(bodies[0]!);
    expect(bodies[2]).toBe(bodies[0]!);
  });

  test("each person's own pages show their own data and nothing of the other", async () => {
    for (const path of OWN_PAGES) {
      for (const [me, other] of [
        [ana, ben],
        [ben, ana],
        [ana, ben],
      ] as const) {
        const { status, html } = await fetchPage(me.client, path);
        expect(status, `${me.username} ${path}`).toBe(200);
        expectNothingOf(html, other);
        expect(html).toContain(`<meta name="csrf-token" content="${me.client.csrf}"`);
        if (path === "/profile") expect(html).toContain(me.firstName);
      }
    }
  });

  test("the landing page, asked for between the people's pages, holds neither person", async () => {
    const landing: string[] = [];
    for (const p of [ana, ben, ana]) {
      expect((await fetchPage(p.client, "/")).status).toBe(200);
      for (const c of [visitor, t.client()]) {
        const { status, html } = await fetchPage(c, "/welcome");
        expect(status).toBe(200);
        expectNothingOf(html, ana, ben);
        landing.push(html.replaceAll(c.csrf || "\u0000", "TOKEN"));
      }
    }
    for (const html of landing) expect(html).toBe(landing[0]!);
    // A signed-in person is sent into the app from /welcome.
    expect((await ana.client.get("/welcome")).headers.get("location")).toBe("/");
  });
});

describe("remember renders from a kept view", () => {
  const fullView = (name: string): View => ({
    t: ((key: string) => key) as View["t"],
    locale: "en",
    user: { id: `id-${name}`, firstName: name } as unknown as View["user"],
    csrf: `csrf-${name}`,
    path: `/path-of-${name}`,
    assets: {} as View["assets"],
    toast: { title: `toast-${name}`, variant: "success" },
    unreadConversations: () => 7,
  });

  test("the render gets only the texts, the language and the built files, whatever the view holds", () => {
    const parts: KeptParts = new Map();
    let got: KeptView | undefined;
    const render = (kept: KeptView) => {
      got = kept;
      return `<p>${Object.keys(kept).sort().join(",")}</p>`;
    };
    // Drawn into Ana's page the first time, kept the second.
    expect(String(remember(parts, "k", fullView("Ana"), render))).toBe("<p>assets,locale,t</p>");
    const marker = remember(parts, "k", fullView("Ana"), render);
    expect(Object.keys(got!).sort()).toEqual(["assets", "locale", "t"]);
    expect(got).not.toHaveProperty("user");
    expect(got).not.toHaveProperty("csrf");
    expect(expandText(String(marker))).toBe("<p>assets,locale,t</p>");
    // Ben's page reuses Ana's part: it was never hers.
    expect(remember(parts, "k", fullView("Ben"), () => "<p>never</p>")).toBe(marker);
  });

  test("a part with forms gets the CSRF slot and the path given, never the visitor's", () => {
    const parts: KeptParts = new Map();
    let got: KeptFormView | undefined;
    const marker = remember(parts, "form", fullView("Ana"), { path: "/activity/x" }, (kept) => {
      got = kept;
      return `<form><input name="_csrf" value="${kept.csrf}"/><input name="next" value="${kept.path}"/></form>`;
    });
    expect(Object.keys(got!).sort()).toEqual(["assets", "csrf", "locale", "path", "t"]);
    expect(got!.csrf).toBe(CSRF_SLOT);
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    expect(decode(pageBytes(String(marker), "tok-ben"))).toBe('<form><input name="_csrf" value="tok-ben"/><input name="next" value="/activity/x"/></form>');
  });

  test("rememberAround keeps the text around its holes, and each page fills them with its own", () => {
    const kept: KeptAround = new Map();
    let renders = 0;
    const render = (_view: KeptView, [badge]: readonly string[]) => {
      renders++;
      return `<nav><a>Bookings${badge}</a></nav>`;
    };
    const [start, end] = rememberAround(kept, "nav", fullView("Ana"), 1, render);
    const again = rememberAround(kept, "nav", fullView("Ben"), 1, render);
    expect(renders).toBe(1);
    expect(again).toEqual([start!, end!]);
    const page = (badge: string) => new TextDecoder().decode(pageBytes(`${start}${badge}${end}`, null));
    expect(page("<b>3</b>")).toBe("<nav><a>Bookings<b>3</b></a></nav>");
    expect(page("")).toBe("<nav><a>Bookings</a></nav>");
    expect(() => rememberAround(new Map(), "x", fullView("Ana"), 2, (_v, [a]) => `<p>${a}</p>`)).toThrow();
  });
});
