import { describe, expect, test } from "bun:test";
import { formatLocal, instantOf, localOf, parseLocal, todayIn } from "../lib/time";

describe("time in an activity's city", () => {
  test("a wall-clock time in a zone is one instant, and back", () => {
    const at = instantOf("2026-12-01T14:00:00", "Europe/Paris")!;
    expect(new Date(at).toISOString()).toBe("2026-12-01T13:00:00.000Z");
    expect(localOf(at, "Europe/Paris")).toBe("2026-12-01T14:00:00");
    expect(localOf(at, "America/New_York")).toBe("2026-12-01T08:00:00");
  });

  test("an hour skipped by daylight saving does not exist; impossible dates are refused", () => {
    expect(instantOf("2026-03-29T02:30:00", "Europe/Paris")).toBeNull();
    expect(instantOf("2026-02-30T10:00:00", "Europe/Paris")).toBeNull();
    expect(parseLocal("tomorrow at ten")).toBeNull();
  });

  test("today depends on the zone", () => {
    const lateUtc = Date.UTC(2026, 10, 22, 23, 30);
    expect(todayIn(lateUtc, "Europe/Paris")).toBe("2026-11-23");
    expect(todayIn(lateUtc, "America/New_York")).toBe("2026-11-22");
  });

  test("shown as the city's wall clock in the viewer's language", () => {
    expect(formatLocal("2026-12-01T14:00:00", "en")).toBe("Dec 1, 2026, 2:00 PM");
    expect(formatLocal("2026-12-01T14:00:00", "fr")).toBe("1 déc. 2026, 14:00");
    expect(formatLocal("2026-12-01T14:00:00", "en", "longDate")).toBe("Tuesday, December 1, 2026");
  });
});
