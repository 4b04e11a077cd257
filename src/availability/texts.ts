/**
 * Availability texts: weekly hours, days off and blocked times, notice and horizon, calendar
 * feeds and the outside busy calendar. English is the default; `fr` is typed against `en`.
 * Assembled into the catalogue by `src/texts.ts`.
 */
export const en = {
  "availability.title": "Availability",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "availability.title": "Disponibilités",
};
