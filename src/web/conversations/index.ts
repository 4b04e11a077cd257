import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { messageApi } from "./api";
import { conversationPages } from "./routes";

/**
 * The chat feature: the messages calls of spec §7 (`api.ts`), and the bookings inbox and
 * conversation screens (`routes.tsx`). Its live delivery is the live feature's (src/live/).
 */
export const conversationsFeature = (deps: Deps) => new Elysia({ name: "offline.conversations.feature", seed: deps.id }).use(messageApi(deps)).use(conversationPages(deps));
