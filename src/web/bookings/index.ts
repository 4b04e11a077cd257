import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { adminPaymentRoutes } from "./admin";
import { bookingApi } from "./api";
import { wireBookings } from "../../bookings/handlers";
import { bookingPages } from "./routes";

/**
 * The bookings feature: its JSON API (`api.ts`), its screens (`routes.tsx`), the operators'
 * payments page (`admin.tsx`), its timed work and its answers to the payment provider's news
 * (`handlers.ts`, registered here once).
 */
export function bookingsFeature(deps: Deps) {
  wireBookings(deps);
  return new Elysia({ name: "offline.bookings.feature", seed: deps.id }).use(bookingApi(deps)).use(bookingPages(deps)).use(adminPaymentRoutes(deps));
}
