import { expect, test } from "bun:test";
import { findWeekendMorningForTwoByPrice, signInAs } from "./flows";
import { expectAccessible, islandsRendered, serverAndBrowser } from "./harness";

const env = serverAndBrowser();

/**
 * Finding by when on a 360 px phone (docs/decisions/0054-find-by-when.md): the demo guest asks for
 * something to do this weekend, in the morning, for two, under $60, then sorts by price. Each
 * change swaps the results alone and puts the filters in the address; the back button goes back
 * through them; every card says its first start at a weekend morning.
 */
test("this weekend, morning, 2 people, under $60, sorted by price, at 360 px", async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signInAs(page, env.server.url, "guest@offline.test");
  await page.goto(`${env.server.url}/browse?city=New%20York`);
  await islandsRendered(page);
  // A mark on the form the page came with: still there after the changes, only the results were swapped.
  await page.evaluate(() => document.querySelector("#browse-form")!.setAttribute("data-first-load", ""));

  await findWeekendMorningForTwoByPrice(page);

  // The results alone were swapped: the page around them is the one first loaded.
  expect(await page.locator("#browse-form[data-first-load]").count()).toBe(1);
  const search = new URLSearchParams(new URL(page.url()).search);
  expect(Object.fromEntries(search)).toMatchObject({ city: "New York", date: "weekend", timeOfDay: "morning", people: "2", maxPrice: "60", sort: "price" });

  const count = (await page.locator("#results > p").first().textContent())!;
  expect(count).toMatch(/^\d[\d,]*\+? activit(y|ies) found$/);
  const cards = page.locator("#results a.card-link");
  const n = await cards.count();
  expect(n).toBeGreaterThan(0);
  const prices: number[] = [];
  for (let i = 0; i < n; i++) {
    const text = (await cards.nth(i).innerText()).replace(/\s+/g, " ");
    // The first start is a weekend morning: "Sat 9:00 AM" or "Sun 11:00 AM", a group's with its spots left.
    expect(text).toMatch(/(Sat|Sun) ([89]|1[01]):00 AM/);
    const price = Number(/\$(\d+)/.exec(text)![1]);
    expect(price).toBeLessThanOrEqual(60);
    prices.push(price);
  }
  expect(prices).toEqual([...prices].sort((a, b) => a - b));
  await expectAccessible(page, "browse filtered by when");

  // Back goes to the results before the order changed, with the form saying so.
  await page.goBack();
  await page.waitForFunction(() => !location.search.includes("sort=price"));
  await page.waitForFunction(() => (document.querySelector("#browse-sort") as HTMLSelectElement | null)?.value === "recommended");
  expect(new URL(page.url()).searchParams.get("maxPrice")).toBe("60");

  // The address is the search: opened anew (a shared link), it shows the same results.
  await page.goto(`${env.server.url}/browse?${search}`);
  await islandsRendered(page);
  expect(await page.locator("#results a.card-link").count()).toBe(n);
  expect(await page.getByLabel("Sort by").inputValue()).toBe("price");
  expect(errors).toEqual([]);
  await context.close();
});

test("without script, the filters are a plain GET form; a bad price is said beside its field", async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await signInAs(page, env.server.url, "guest@offline.test");
  await page.goto(`${env.server.url}/browse?city=New%20York`);
  await page.getByLabel("Date", { exact: true }).selectOption("weekend");
  await page.getByLabel("Max price ($)").fill("cheap");
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForURL(/maxPrice=cheap/);
  expect(new URL(page.url()).searchParams.get("date")).toBe("weekend");
  expect((await page.locator("#browse-error-maxPrice").textContent())?.trim()).toBe("Enter a price in numbers, more than 0");
  expect(await page.getByLabel("Max price ($)").getAttribute("aria-invalid")).toBe("true");
  // The other filter still applies: every card starts this weekend.
  const first = page.locator("#results a.card-link").first();
  if (await first.count()) expect(await first.innerText()).toMatch(/Sat|Sun/);
  await context.close();
});
