import type { View } from "../../src/shell/view";
import { AppLayout } from "./AppLayout";
import { Document } from "./Document";

/**
 * A page that anyone may reach, signed in or not (an error, an unsubscribe link): in the app's
 * layout for a signed-in person, else in the bare document, so a visitor sees no app navigation.
 */
export function PlainPage({ view, title, children }: { view: View; title: string; children: JSX.Element }) {
  return view.user ? (
    <AppLayout view={view} title={title}>
      {children as "safe"}
    </AppLayout>
  ) : (
    <Document view={view} title={title}>
      <main id="main" class="mx-auto max-w-md px-5">
        {children as "safe"}
      </main>
    </Document>
  );
}
