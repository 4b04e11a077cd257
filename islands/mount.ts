/** @jsxImportSource react */
import { createElement, startTransition, useLayoutEffect, type ComponentType, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

/** Resolves in a later task, so the browser may paint and answer input in between. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Each island module exports `mount`, made here, so React loads only with an island.
 *
 * On a slow phone no step of a mount may hold the page for long (decision 0039):
 *   - `prepare(props)`, when given, runs first in a task of its own: slow one-off work the
 *     first render would otherwise do inside one of React's slices (the first Intl date
 *     formatter a page makes loads the language's data: some 15 ms on such a phone);
 *   - the first render is a transition, which React renders in slices of a few milliseconds,
 *     letting the browser answer input and paint between them.
 * The server's fallback HTML stays until the island's first commit replaces it; the promise
 * settles once that commit is on the page.
 */
export function mountWith<P extends object>(Component: ComponentType<P>, prepare?: (props: P) => void) {
  return async (element: HTMLElement, props: P) => {
    if (prepare) {
      await nextTask();
      prepare(props);
    }
    await nextTask();
    await new Promise<void>((resolve) => {
      const root = createRoot(element);
      startTransition(() => root.render(createElement(Committed, { onCommit: () => resolve(), children: createElement(Component, props) })));
    });
  };
}

/** Calls `onCommit` once, when the island's first render is committed. */
function Committed({ onCommit, children }: { onCommit: () => void; children: ReactNode }) {
  useLayoutEffect(() => onCommit(), []);
  return children;
}
