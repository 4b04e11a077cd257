/**
 * Settings → Push Notifications (views/notifications/PushCard.tsx): finds which of the three
 * states this browser is in and answers the card's buttons and switches. Loaded only on the page
 * that has the card; no React.
 */
import { csrfToken, toast } from "../api";

type Texts = Record<
  | "notSupported" | "notSupportedBody" | "permissionDenied" | "permissionDeniedBody" | "notSubscribed" | "notSubscribedBody"
  | "settingsFailed" | "testFailed" | "preferenceFailed" | "enabled" | "disabled" | "testSent" | "testSentBody" | "testTitle" | "testBody" | "error",
  string
>;

type State = "unsupported" | "unsubscribed" | "subscribed";

const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function post(path: string, body: unknown) {
  return fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken() },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
}

/** The server's message of a refused call, if it sent one. */
async function messageOf(res: Response): Promise<string | undefined> {
  try {
    return ((await res.json()) as { message?: string }).message;
  } catch {
    return undefined;
  }
}

function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

const sameBytes = (a: ArrayBuffer | null | undefined, b: Uint8Array) => !!a && a.byteLength === b.length && new Uint8Array(a).every((x, i) => x === b[i]);

export async function watchPush(card: HTMLElement) {
  const texts = JSON.parse(card.dataset.texts ?? "{}") as Texts;
  const serverKey = base64urlBytes(card.dataset.vapidKey ?? "");

  const show = (state: State) => {
    for (const part of card.querySelectorAll<HTMLElement>("[data-push-state]")) part.hidden = part.dataset.pushState !== state;
    const blocked = card.querySelector<HTMLElement>("[data-push-blocked]");
    if (blocked) blocked.hidden = state !== "unsubscribed" || Notification.permission !== "denied";
    // Shown before this script ran (the card's first state), it waited for it to answer.
    const enableButton = card.querySelector<HTMLButtonElement>('[data-push-action="enable"]');
    if (enableButton) enableButton.disabled = false;
  };

  // The switches govern email too: they save at once whether or not this browser can take push,
  // and from the first moment (registering the worker can take seconds on a slow phone).
  card.addEventListener("change", (event) => {
    const input = event.target as HTMLInputElement;
    if (input.dataset.pushPreference) void setPreference(input);
  });

  if (!supported()) {
    show("unsupported");
    return;
  }
  const registration = await navigator.serviceWorker.register("/sw.js").catch(() => null);
  if (!registration) {
    show("unsupported");
    return;
  }
  const subscription = () => registration.pushManager.getSubscription();

  let current = await subscription();
  // Made with keys the server no longer uses: it cannot receive anything, so it goes.
  if (current && !sameBytes(current.options.applicationServerKey, serverKey)) {
    await current.unsubscribe().catch(() => {});
    current = null;
  }
  if (current) {
    show("subscribed");
    // The server may have dropped it meanwhile (the browser's push service said it was gone, or
    // another device took its place): telling it again costs one call and keeps both in step.
    void post("/api/notifications/subscribe", current.toJSON()).catch(() => {});
  } else {
    show("unsubscribed");
  }

  async function enable() {
    if (!supported()) return toast(texts.notSupported, texts.notSupportedBody);
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      show("unsubscribed");
      return toast(texts.permissionDenied, texts.permissionDeniedBody);
    }
    try {
      const ready = await navigator.serviceWorker.ready;
      const made = await ready.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: serverKey });
      const res = await post("/api/notifications/subscribe", made.toJSON());
      if (!res.ok) {
        await made.unsubscribe().catch(() => {});
        throw new Error(`subscribe: ${res.status}`);
      }
      show("subscribed");
      toast(texts.enabled, undefined, "success");
    } catch (err) {
      console.error("enabling push notifications failed", err);
      toast(texts.error, texts.settingsFailed);
    }
  }

  async function disable() {
    const mine = await subscription();
    if (mine) {
      const res = await post("/api/notifications/unsubscribe", { endpoint: mine.endpoint }).catch(() => null);
      // 404: the server had already forgotten it; either way it goes here too.
      if (!res || (!res.ok && res.status !== 404)) return toast(texts.error, texts.settingsFailed);
      await mine.unsubscribe().catch(() => {});
    }
    show("unsubscribed");
    toast(texts.disabled, undefined, "success");
  }

  async function sendTest() {
    if (!(await subscription())) {
      show("unsubscribed");
      return toast(texts.notSubscribed, texts.notSubscribedBody);
    }
    const res = await post("/api/notifications/test", { title: texts.testTitle, body: texts.testBody }).catch(() => null);
    if (res?.ok) return toast(texts.testSent, texts.testSentBody, "success");
    if (res?.status === 409) return toast(texts.notSubscribed, texts.notSubscribedBody);
    toast(texts.error, (res?.status === 429 && (await messageOf(res))) || texts.testFailed);
  }

  /** A switch applies at once; if the server did not take it, it goes back. */
  async function setPreference(input: HTMLInputElement) {
    const key = input.dataset.pushPreference!;
    input.disabled = true;
    const res = await post("/api/notifications/preferences", { [key]: input.checked }).catch(() => null);
    if (!res?.ok) {
      input.checked = !input.checked;
      toast(texts.error, texts.preferenceFailed);
    }
    input.disabled = false;
  }

  card.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.<HTMLButtonElement>("[data-push-action]");
    if (!button || button.disabled) return;
    const action = { enable, disable, test: sendTest }[button.dataset.pushAction as "enable" | "disable" | "test"];
    button.disabled = true;
    void action().finally(() => (button.disabled = false));
  });
}
