import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../db/schema";
import { ageOn } from "../shared/dates";
import { countries, HIGHLIGHTED } from "../lib/places";
import { makeTestApp, pathOfLink, waitForOutboxEmail, type Client } from "./helpers";
import { scenarios, shown, type Scenario } from "./scenario";

// A fixed "today" so ages on birthdays are exact.
const TODAY = Date.parse("2026-11-22T12:00:00Z");
let t: Awaited<ReturnType<typeof makeTestApp>>;
beforeAll(async () => {
  t = await makeTestApp({ now: () => TODAY });
});
afterAll(() => t.cleanup());

type Json = Record<string, unknown> & { fields?: Record<string, string>; message?: string };
const body = async (res: Response) => (await res.json()) as Json;

describe("onboarding", () => {
  test("an incomplete profile is sent to onboarding from every app screen, not from the API", async () => {
    const c = t.client();
    await c.signUp();
    for (const path of ["/", "/browse", "/profile", "/settings", "/bookings", "/no/such/page"]) {
      const res = await c.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/onboarding");
    }
    expect((await c.get("/api/auth/user")).status).toBe(200);
    const page = await c.get("/onboarding");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Step 1 of 5");
    expect(html).not.toContain('aria-label="Back"'); // no back button on step 1
  });

  test("five steps with the spec's rules, then /browse with 'Profile completed!'", async () => {
    const c = t.client();
    await c.signUp();
    const step = (n: number, form: Record<string, string>) => c.postForm("/onboarding", { step: String(n), ...form });

    let res = await step(1, { firstName: "  ", lastName: "Doe" });
    expect(res.status).toBe(400);
    let html = await res.text();
    expect(html).toContain("Required fields");
    expect(html).toContain("Please enter both first and last name");
    res = await step(1, { firstName: "Jane", lastName: "Doe" });
    expect(res.headers.get("location")).toBe("/onboarding?step=2");

    const page2 = await (await c.get("/onboarding?step=2")).text();
    expect(page2).toContain('aria-label="Back"');
    res = await step(2, { username: "ab" });
    expect(await res.text()).toContain("Username must be at least 3 characters");
    res = await step(2, { username: "" });
    expect(await res.text()).toContain("Please enter a username");
    res = await step(2, { username: "Jane.Doe" });
    expect(res.headers.get("location")).toBe("/onboarding?step=3");

    res = await step(3, { dateOfBirth: "" });
    expect(await res.text()).toContain("Please select your birthday");
    res = await step(3, { dateOfBirth: "2008-11-23" }); // 18 tomorrow
    html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain("Age requirement");
    expect(html).toContain("You must be at least 18 years old to use this platform");
    res = await step(3, { dateOfBirth: "2008-11-22" }); // 18 today
    expect(res.headers.get("location")).toBe("/onboarding?step=4");

    res = await step(4, { photos: "[]" });
    expect(res.status).toBe(400);
    const photo = await c.uploadPhoto();
    res = await step(4, { photos: JSON.stringify([photo]) });
    expect(res.headers.get("location")).toBe("/onboarding?step=5");

    res = await step(5, { country: "France", city: "New York" });
    expect(await res.text()).toContain("Please select both country and city");
    res = await step(5, { country: "France", city: "Lyon" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/browse");
    const browse = await (await c.get("/browse")).text();
    expect(browse).toContain("Profile completed!");
    expect(browse).toContain("Welcome to Offline! You can now browse activities.");
    expect(browse).toContain("Activities in Lyon");

    const me = await body(await c.get("/api/auth/user"));
    expect(me).toMatchObject({ firstName: "Jane", lastName: "Doe", name: "Jane Doe", username: "jane.doe", dateOfBirth: "2008-11-22", country: "France", city: "Lyon", age: 18 });
    expect((await c.get("/onboarding")).headers.get("location")).toBe("/browse");
  });

  test("steps cannot be skipped", async () => {
    const c = t.client();
    await c.signUp();
    const res = await c.postForm("/onboarding", { step: "5", country: "France", city: "Paris" });
    expect(res.headers.get("location")).toBe("/onboarding");
    const page = await (await c.get("/onboarding?step=4")).text();
    expect(page).toContain("Step 1 of 5");
  });
});

describe("the profile call", () => {
  let c: Client;
  beforeAll(async () => {
    c = t.client();
    await c.signUpComplete({ username: "profiler" });
  });

  const refusals: [Record<string, unknown>, string, string][] = [
    [{ firstName: "" }, "firstName", "First name is required"],
    [{ lastName: "   " }, "lastName", "Last name is required"],
    [{ firstName: "x".repeat(51) }, "firstName", "Names are 50 characters at most"],
    [{ username: "" }, "username", "Please enter a username"],
    [{ username: "ab" }, "username", "Username must be at least 3 characters"],
    [{ username: "has space" }, "username", "Use only letters, numbers, dots and underscores"],
    [{ username: "x".repeat(31) }, "username", "Username must be 30 characters at most"],
    [{ dateOfBirth: "" }, "dateOfBirth", "Please select your birthday"],
    [{ dateOfBirth: "2001-02-30" }, "dateOfBirth", "Please enter a real date of birth"],
    [{ dateOfBirth: "2030-01-01" }, "dateOfBirth", "Please enter a real date of birth"],
    [{ dateOfBirth: "1850-01-01" }, "dateOfBirth", "Please enter a real date of birth"],
    [{ dateOfBirth: "2008-11-23" }, "dateOfBirth", "You must be at least 18 years old to use this platform"],
    [{ country: "Atlantis", city: "Paris" }, "city", "Please select both country and city"],
    [{ country: "France", city: "Tokyo" }, "city", "Please select both country and city"],
    [{ bio: "x".repeat(501) }, "bio", "The bio is 500 characters at most"],
    [{ photos: ["a", "b", "c", "d", "e", "f", "g"] }, "photos", "6 photos at most"],
    [{ photos: ["/objects/00000000-0000-4000-8000-000000000000"] }, "photos", "These photos could not be saved"],
    [{ photos: "not json" }, "photos", "These photos could not be saved"],
    [{ photos: [] }, "photos", "Add at least one photo"],
    [{ about: "{not json" }, "about", "The about section could not be read"],
    [{ about: JSON.stringify({ politics: "Anarchist" }) }, "about", "Choose one of the options"],
    [{ about: JSON.stringify({ work: "x".repeat(81) }) }, "about", "80 characters at most"],
    [{ about: JSON.stringify({ spokenLanguages: ["Klingon"] }) }, "about", "Choose one of the options"],
  ];
  scenarios(
    () => t,
    refusals.map(([input, field, message]): Scenario => ({
      name: `${shown(input)} is refused with its message and changes nothing`,
      as: () => c,
      method: "PUT",
      url: "/api/user/profile",
      body: input,
      status: 400,
      json: { fields: { [field]: message } },
      unchanged: async () => body(await c.get("/api/user")),
    })),
  );

  test("a valid change answers with the user; usernames are lowercased", async () => {
    const res = await c.putJson("/api/user/profile", { username: "Profiler.Two", bio: "  Hello there  ", interests: "tennis, jazz, tennis" });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ username: "profiler.two", bio: "Hello there", interests: ["tennis", "jazz"] });
  });

  test("the Name screen's name is split into first and last name", async () => {
    const res = await c.putJson("/api/user/profile", { name: "Mary Jane Watson" });
    expect(await body(res)).toMatchObject({ firstName: "Mary", lastName: "Jane Watson", name: "Mary Jane Watson" });
  });

  test("a taken username is 409 'This username is already taken'", async () => {
    const other = t.client();
    await other.signUpComplete({ username: "takenname" });
    const res = await c.putJson("/api/user/username", { username: "TakenName" });
    expect(res.status).toBe(409);
    expect((await body(res)).message).toBe("This username is already taken");
  });

  test("check-username: available, taken, own, too short", async () => {
    const other = t.client();
    await other.signUpComplete({ username: "somebody" });
    expect(await body(await c.get("/api/check-username?username=free.name"))).toEqual({ available: true });
    expect(await body(await c.get("/api/check-username?username=somebody"))).toEqual({ available: false });
    const own = (await body(await c.get("/api/user"))).username as string;
    expect(await body(await c.get(`/api/check-username?username=${own}`))).toEqual({ available: true });
    expect((await body(await c.get("/api/check-username?username=ab"))).available).toBe(false);
  });

  test("photos: up to six of one's own uploads, first is the main photo", async () => {
    const a = await c.uploadPhoto();
    const b = await c.uploadPhoto();
    const res = await c.putJson("/api/user/profile", { photos: [b, a, ""] });
    expect(await body(res)).toMatchObject({ photos: [b, a], photo: b });
    const main = await c.putJson("/api/user/profile", { photo: a });
    expect(await body(main)).toMatchObject({ photos: [a, b], photo: a });
  });

  test("nobody can put someone else's photo on their profile", async () => {
    const mine = await c.uploadPhoto();
    const thief = t.client();
    await thief.signUpComplete();
    const res = await thief.putJson("/api/user/profile", { photos: [mine] });
    expect(res.status).toBe(400);
  });

  test("one user cannot change another's profile: the session decides whose it is", async () => {
    const victim = t.client();
    const { user } = await victim.signUpComplete({ username: "victim" });
    await c.putJson("/api/user/profile", { id: user.id, username: "hijacked", bio: "mine now" });
    const row = await one(t.db.select().from(users).where(eq(users.id, user.id)));
    expect(row!.username).toBe("victim");
    expect(row!.bio).toBeNull();
  });

  test("about and its visibility accept JSON strings, as the spec's client sends them", async () => {
    const res = await c.putJson("/api/user/profile", {
      about: JSON.stringify({ work: "Bakery", jobTitle: "Baker", politics: "Moderate", spokenLanguages: ["French", "English"], unknownField: "x" }),
      aboutVisibility: JSON.stringify({ jobtitle: false, politics: false, bogus: true }),
    });
    const me = await body(res);
    expect(JSON.parse(me.about as string)).toEqual({ work: "Bakery", jobTitle: "Baker", politics: "Moderate", spokenLanguages: ["French", "English"] });
    expect(JSON.parse(me.aboutVisibility as string)).toEqual({ jobtitle: false, politics: false });
  });
});

describe("ages on the days around the 18th birthday", () => {
  test.each([
    ["2008-11-22", 18],
    ["2008-11-23", 17],
    ["2008-11-21", 18],
    ["2000-02-29", 26],
  ])("born %s is %i on 2026-11-22", (birthday, age) => {
    expect(ageOn(birthday, new Date(TODAY))).toBe(age);
  });
});

describe("email and password", () => {
  test("changing the email asks for the current password", async () => {
    const c = t.client();
    const { password } = await c.signUpComplete();
    expect((await c.putJson("/api/user/email", { email: "new@example.com" })).status).toBe(400);
    const wrong = await c.putJson("/api/user/email", { email: "new@example.com", currentPassword: "nope" });
    expect(wrong.status).toBe(403);
    expect((await body(wrong)).message).toBe("Current password is incorrect");
    expect((await body(await c.putJson("/api/user/email", { email: "bad", currentPassword: password }))).message).toBe("Please enter a valid email address");
    const before = (await body(await c.get("/api/user"))).email;
    const ok = await c.putJson("/api/user/email", { email: "New@Example.com", currentPassword: password });
    // The new address confirms the change first: nothing has changed yet.
    expect(ok.status).toBe(202);
    expect(await body(ok)).toMatchObject({ email: before, pendingEmail: "new@example.com", message: "We sent a link to new@example.com. Your email changes when you follow it." });
    expect((await body(await c.get("/api/user"))).email).toBe(before);
    await followChangeLink(c, "new@example.com");
    expect(await body(await c.get("/api/user"))).toMatchObject({ email: "new@example.com", emailVerified: true });
    const other = t.client();
    const { password: p2 } = await other.signUpComplete();
    expect((await other.putJson("/api/user/email", { email: "new@example.com", currentPassword: p2 })).status).toBe(409);
  });

  const passwordRefusals: [Record<string, unknown>, string, string][] = [
    [{ newPassword: "secret99" }, "currentPassword", "Current password is required"],
    [{ currentPassword: "secret123", newPassword: "12345" }, "newPassword", "New password must be at least 6 characters"],
    [{ currentPassword: "secret123", newPassword: "secret99", confirmPassword: "" }, "confirmPassword", "Please confirm your password"],
    [{ currentPassword: "secret123", newPassword: "secret99", confirmPassword: "secret98" }, "confirmPassword", "Passwords do not match"],
  ];
  scenarios(
    () => t,
    passwordRefusals.map(([input, field, message]): Scenario => {
      let c: Client;
      return {
        name: `password change ${shown(input)} is refused: ${field}`,
        before: async () => {
          c = t.client();
          await c.signUpComplete();
        },
        as: () => c,
        method: "PUT",
        url: "/api/user/password",
        body: input,
        status: 400,
        json: { fields: { [field]: message } },
      };
    }),
  );

  test("a new password works, the old one does not, and other sessions end", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    const elsewhere = t.client();
    await elsewhere.postJson("/api/login", { email, password });
    expect((await elsewhere.get("/api/user")).status).toBe(200);
    const res = await c.putJson("/api/user/password", { currentPassword: password, newPassword: "brand-new-1", confirmPassword: "brand-new-1" });
    expect(res.status).toBe(200);
    expect((await c.get("/api/user")).status).toBe(200);
    expect((await elsewhere.get("/api/user")).status).toBe(401);
    expect((await t.client().postJson("/api/login", { email, password })).status).toBe(401);
    expect((await t.client().postJson("/api/login", { email, password: "brand-new-1" })).status).toBe(200);
  });
});

/** Follows the link emailed to the new address of an email change (the `count`-th one sent there). */
async function followChangeLink(c: Client, to: string, count = 1) {
  const mail = await waitForOutboxEmail(t.dataDir, to, "email-change", count);
  const res = await c.get(pathOfLink(mail.links.find((l) => l.includes("/verify-email?token="))!));
  expect(res.status).toBe(200);
  return res;
}

describe("changing the email", () => {
  test("waits for the new address's link, then ends the account's other sessions and keeps this one", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    const elsewhere = t.client();
    await elsewhere.postJson("/api/login", { email, password });
    expect((await elsewhere.get("/api/user")).status).toBe(200);
    const moved = `moved-${Date.now()}@example.com`;
    const res = await c.putJson("/api/user/email", { email: moved, currentPassword: password });
    expect(res.status).toBe(202);
    expect((await elsewhere.get("/api/user")).status).toBe(200);
    await followChangeLink(c, moved);
    expect((await c.get("/api/user")).status).toBe(200);
    expect((await elsewhere.get("/api/user")).status).toBe(401);
  });

  test("from the settings form too: the screen says what it waits for, and the link works from another browser", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    const elsewhere = t.client();
    await elsewhere.postJson("/api/login", { email, password });
    const moved = `form-moved-${Date.now()}@example.com`;
    const res = await c.postForm("/settings/email", { email: moved, currentPassword: password });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings/email");
    const screen = await (await c.get("/settings/email")).text();
    expect(screen).toContain(`Waiting for confirmation of ${moved}`);
    expect(screen).toContain("Resend link");
    expect((await elsewhere.get("/api/user")).status).toBe(200);
    // Opened in the phone's mail app: the session that asked stays, the others end.
    await followChangeLink(t.client(), moved);
    expect((await body(await c.get("/api/user"))).email).toBe(moved);
    expect((await elsewhere.get("/api/user")).status).toBe(401);
  });

  test("a refused change ends no session", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    const elsewhere = t.client();
    await elsewhere.postJson("/api/login", { email, password });
    expect((await c.putJson("/api/user/email", { email: "x@example.com", currentPassword: "wrong-one" })).status).toBe(403);
    expect((await elsewhere.get("/api/user")).status).toBe(200);
  });
});

describe("guessing the current password", () => {
  let now = TODAY;
  let g: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    g = await makeTestApp({ now: () => now });
  });
  afterAll(() => g.cleanup());

  test("five wrong tries, shared by the email and password changes, then 429 even for the right password", async () => {
    const c = g.client();
    const { password } = await c.signUpComplete();
    const newPw = { newPassword: "brand-new-1", confirmPassword: "brand-new-1" };
    expect((await c.putJson("/api/user/password", { currentPassword: "guess-1", ...newPw })).status).toBe(403);
    expect((await c.putJson("/api/user/email", { email: "g@example.com", currentPassword: "guess-2" })).status).toBe(403);
    expect((await c.postForm("/settings/password", { currentPassword: "guess-3", ...newPw })).status).toBe(403);
    expect((await c.postForm("/settings/email", { email: "g@example.com", currentPassword: "guess-4" })).status).toBe(403);
    expect((await c.putJson("/api/user/password", { currentPassword: "guess-5", ...newPw })).status).toBe(403);

    const sixth = await c.putJson("/api/user/password", { currentPassword: "guess-6", ...newPw });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(sixth)).message).toBe("Too many attempts. Please wait 15 minutes and try again.");

    // The right password is refused too while the account is locked, on every route.
    const right = await c.putJson("/api/user/password", { currentPassword: password, ...newPw });
    expect(right.status).toBe(429);
    expect((await c.putJson("/api/user/email", { email: "g@example.com", currentPassword: password })).status).toBe(429);
    const form = await c.postForm("/settings/password", { currentPassword: password, ...newPw });
    expect(form.status).toBe(429);
    expect(Number(form.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await form.text()).toContain("Too many attempts");
    const fr = await c.request("/api/user/email", { method: "PUT", json: { email: "g@example.com", currentPassword: password }, headers: { "accept-language": "fr" } });
    expect(fr.status).toBe(429);
    expect((await body(fr)).message).toContain("Trop de tentatives");

    // Nothing changed: the old password still signs in.
    const me = (await body(await c.get("/api/user"))) as { email: string };
    expect((await g.client().postJson("/api/login", { email: me.email, password })).status).toBe(200);

    // When the window has passed, the right password works again.
    now += 15 * 60 * 1000 + 1;
    expect((await c.putJson("/api/user/password", { currentPassword: password, ...newPw })).status).toBe(200);
  });

  test("the limit is per account: another account is not affected", async () => {
    const a = g.client();
    await a.signUpComplete();
    for (let i = 0; i < 6; i++) await a.putJson("/api/user/email", { email: "h@example.com", currentPassword: `nope-${i}` });
    expect((await a.putJson("/api/user/email", { email: "h@example.com", currentPassword: "nope" })).status).toBe(429);
    const b = g.client();
    const { password } = await b.signUpComplete();
    expect((await b.putJson("/api/user/email", { email: `h-${Date.now()}@example.com`, currentPassword: password })).status).toBe(202);
  });
});

describe("public profiles", () => {
  test("show only what the owner left visible and never private data", async () => {
    const owner = t.client();
    await owner.signUpComplete({
      username: "publicperson",
      firstName: "Pat",
      lastName: "Secret",
      about: JSON.stringify({ work: "Studio", politics: "Liberal" }),
      aboutVisibility: JSON.stringify({ politics: false }),
    });
    const viewer = t.client();
    await viewer.signUpComplete();
    const res = await viewer.get("/api/users/by-username/PublicPerson");
    expect(res.status).toBe(200);
    const p = await body(res);
    expect(p).toMatchObject({ username: "publicperson", firstName: "Pat", about: { work: "Studio" } });
    const text = JSON.stringify(p);
    for (const secret of ["email", "passwordHash", "stripeAccountId", "stripeCustomerId", "Secret", "dateOfBirth", "Liberal"]) expect(text).not.toContain(secret);
    expect(Array.isArray(await body(await viewer.get("/api/users/by-username/publicperson/activities")))).toBe(true);
    expect(Array.isArray(await body(await viewer.get("/api/users/by-username/publicperson/reviews")))).toBe(true);

    const page = await (await viewer.get("/profile/publicperson")).text();
    expect(page).toContain("Studio");
    expect(page).not.toContain("Liberal");
    expect(page).not.toContain("Secret");
  });

  test("an unknown username is 'Host not found' with 'Back to Browse'", async () => {
    const viewer = t.client();
    await viewer.signUpComplete();
    expect((await viewer.get("/api/users/by-username/nobody-here")).status).toBe(404);
    const res = await viewer.get("/profile/nobody-here");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Host not found");
    expect(html).toContain("Back to Browse");
  });

  test("need a signed-in viewer", async () => {
    expect((await t.client().get("/api/users/by-username/publicperson")).status).toBe(401);
  });
});

describe("screens", () => {
  test("own profile, edit profile and settings render for a complete profile", async () => {
    const c = t.client();
    await c.signUpComplete({ username: "screens", firstName: "Sam" });
    const profile = await (await c.get("/profile")).text();
    expect(profile).toContain("Sam");
    expect(profile).toContain('data-copy="/profile/screens"');
    expect(profile).toContain("No reviews yet");
    for (const path of ["/edit-profile", "/settings", "/settings/account", "/settings/first-name", "/settings/name", "/settings/birthday", "/settings/username", "/settings/email", "/settings/password", "/help", "/reviews"]) {
      expect((await c.get(path)).status).toBe(200);
    }
    expect((await c.get("/settings/nonsense")).status).toBe(404);
  });

  test("edit profile saves bio, about and visibility, then goes to /profile with 'Profile Updated'", async () => {
    const c = t.client();
    await c.signUpComplete();
    const photos = ((await body(await c.get("/api/user"))).photos as string[]);
    const res = await c.postForm("/edit-profile", {
      photos: JSON.stringify(photos),
      bio: "I love tennis",
      interests: "tennis",
      about_work: "Acme",
      visible_work: "on",
      about_politics: "Moderate",
      about_spokenLanguages_French: "on",
      about_spokenLanguages_Hindi: "on",
      visible_spokenLanguages: "on",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/profile");
    const me = await body(await c.get("/api/user"));
    expect(me.bio).toBe("I love tennis");
    expect(JSON.parse(me.about as string)).toEqual({ work: "Acme", politics: "Moderate", spokenLanguages: ["French", "Hindi"] });
    // A field whose switch was off is hidden; the others stay visible.
    expect(JSON.parse(me.aboutVisibility as string)).toMatchObject({ work: true, politics: false, spokenLanguages: true });
    expect(await (await c.get("/profile")).text()).toContain("Profile Updated");
  });

  test("settings name screen: both names required, saved back to /settings", async () => {
    const c = t.client();
    await c.signUpComplete();
    const bad = await c.postForm("/settings/name", { firstName: "", lastName: "" });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain("First name is required");
    expect(html).toContain("Last name is required");
    const ok = await c.postForm("/settings/name", { firstName: "Ana", lastName: "Lopez" });
    expect(ok.headers.get("location")).toBe("/settings");
    expect((await body(await c.get("/api/user"))).name).toBe("Ana Lopez");
    const failed = await c.postForm("/settings/first-name", { firstName: " " });
    expect(await failed.text()).toContain("Failed to update first name");
  });

  test("location saves at once; a new country resets the city to its first city", async () => {
    const c = t.client();
    await c.signUpComplete();
    const res = await c.request("/settings/location", { method: "POST", form: { country: "Japan", city: "New York" }, headers: { "hx-request": "true" } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.headers.get("hx-trigger")!).toast.title).toBe("Profile Updated");
    expect(await body(await c.get("/api/user"))).toMatchObject({ country: "Japan", city: "Tokyo" });
  });

  test("the username status fragment says available, taken or too short", async () => {
    const c = t.client();
    await c.signUpComplete({ username: "fragmentuser" });
    const other = t.client();
    await other.signUpComplete({ username: "alreadyhere" });
    expect(await (await c.get("/fragments/username-status?username=brandnewname")).text()).toContain("Username available");
    const taken = await (await c.get("/fragments/username-status?username=alreadyhere")).text();
    expect(taken).toContain("Username not available");
    expect(taken).toContain('data-blocking="true"');
    expect(await (await c.get("/fragments/username-status?username=ab")).text()).toContain("at least 3 characters");
    expect((await t.client().get("/fragments/username-status?username=x")).status).toBe(401);
  });
});

describe("countries and cities", () => {
  test("eleven countries, about ten cities each and fifty for the United States, each with a time zone", () => {
    expect(countries.map((c) => c.name).sort()).toEqual(
      ["Australia", "Brazil", "Canada", "France", "Germany", "Israel", "Italy", "Japan", "Spain", "United Kingdom", "United States"].sort(),
    );
    for (const country of countries) {
      expect(country.cities.length).toBeGreaterThanOrEqual(HIGHLIGHTED);
      for (const city of country.cities) expect(() => new Intl.DateTimeFormat("en", { timeZone: city.timeZone })).not.toThrow();
      expect(new Set(country.cities.map((c) => c.name)).size).toBe(country.cities.length);
    }
    expect(countries.find((c) => c.name === "United States")!.cities.length).toBe(50);
  });

  test("lists show a highlighted top ten, a separator, then the rest", async () => {
    const c = t.client();
    await c.signUp();
    await c.postForm("/onboarding", { step: "1", firstName: "A", lastName: "B" });
    const html = await (await c.get("/fragments/location?country=United%20States")).text();
    const [countryPart, cityPart] = html.split('id="field-city"') as [string, string];
    const optionsOf = (part: string) => [...part.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => m[1]);
    const cities = optionsOf(cityPart);
    expect(cities[1]).toBe("New York");
    expect(cities[11]).toContain("───");
    expect(cities.length).toBe(1 + 10 + 1 + 40);
    const countryOptions = optionsOf(countryPart);
    expect(countryOptions[1]).toBe("United States");
    expect(countryOptions[11]).toContain("───");
    expect(countryOptions[12]).toBe("Israel");
  });
});
