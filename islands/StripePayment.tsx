/** @jsxImportSource react */
import { loadStripe, type Stripe, type StripeElements } from "@stripe/stripe-js";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { mountWith } from "./mount";

export interface StripePaymentProps {
  publishableKey: string;
  /** The PaymentIntent's client secret (manual capture: confirming it holds the card). */
  clientSecret: string;
  /** Where Stripe sends the browser back after a redirect (3-D Secure): the server finishes from there. */
  returnUrl: string;
  /** The total, formatted, shown on the button. */
  amountLabel: string;
  locale: "en" | "fr";
  /**
   * The form the test card form posts too: once the card is held, the intent's id goes there and
   * the server reads the intent again from Stripe before making the booking.
   */
  finish: { action: string; csrf: string; amount: string };
  texts: Record<"pay" | "processing" | "failed" | "loading" | "loadFailed", string>;
}

/**
 * The card form with Stripe: Stripe's Payment Element (its own frame, from js.stripe.com, loaded
 * only by this island), confirmed in the page; a card that needs authentication goes through
 * Stripe's page and comes back to `returnUrl`.
 */
function StripePayment(p: StripePaymentProps) {
  const target = useRef<HTMLDivElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const intentField = useRef<HTMLInputElement>(null);
  const [stripe, setStripe] = useState<Stripe | null>(null);
  const [elements, setElements] = useState<StripeElements | null>(null);
  const [ready, setReady] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    loadStripe(p.publishableKey, { locale: p.locale })
      .then((s) => {
        if (stopped) return;
        if (!s || !target.current) {
          setError(p.texts.loadFailed);
          return;
        }
        const els = s.elements({ clientSecret: p.clientSecret, locale: p.locale });
        const element = els.create("payment", { layout: "tabs" });
        element.on("ready", () => setReady(true));
        element.on("loaderror", () => setError(p.texts.loadFailed));
        element.mount(target.current);
        setStripe(s);
        setElements(els);
      })
      .catch(() => {
        if (!stopped) setError(p.texts.loadFailed);
      });
    return () => {
      stopped = true;
    };
  }, [p.publishableKey, p.clientSecret, p.locale, p.texts.loadFailed]);

  async function pay(event: FormEvent) {
    event.preventDefault();
    if (!stripe || !elements || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await stripe.confirmPayment({ elements, confirmParams: { return_url: p.returnUrl }, redirect: "if_required" });
      if (result.error) {
        setError(result.error.message ?? p.texts.failed);
        setBusy(false);
        return;
      }
      const status = result.paymentIntent.status;
      if ((status === "requires_capture" || status === "succeeded") && form.current && intentField.current) {
        // The server reads the intent again from Stripe; this post only names it.
        intentField.current.value = result.paymentIntent.id;
        form.current.submit();
        return;
      }
      setError(result.paymentIntent.last_payment_error?.message ?? p.texts.failed);
    } catch {
      setError(p.texts.failed);
    }
    setBusy(false);
  }

  return (
    <form ref={form} method="post" action={p.finish.action} className="flex flex-col gap-3" onSubmit={pay} data-stripe-form="">
      <input type="hidden" name="_csrf" value={p.finish.csrf} />
      <input type="hidden" name="amount" value={p.finish.amount} />
      <input ref={intentField} type="hidden" name="paymentIntentId" defaultValue="" />
      {error ? (
        <div role="alert" className="rounded-xl bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-900/30 dark:text-red-100">
          <p className="font-semibold">{p.texts.failed}</p>
          {error !== p.texts.failed ? <p>{error}</p> : null}
        </div>
      ) : null}
      <div ref={target} className="min-h-24" />
      {ready ? null : <p className="text-sm text-muted">{p.texts.loading}</p>}
      <button type="submit" className="btn btn-primary w-full" disabled={!ready || busy} aria-busy={busy}>
        {busy ? p.texts.processing : p.texts.pay.replace("{amount}", p.amountLabel)}
      </button>
    </form>
  );
}

export const mount = mountWith(StripePayment);
