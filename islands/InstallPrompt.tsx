/** @jsxImportSource react */
import { useState } from "react";
import { mountWith } from "./mount";

export interface InstallPromptProps {
  title: string;
  body: string;
  accept: string;
  dismiss: string;
}

/**
 * The install card. Mounted by the shell only when the browser says the app is installable;
 * it asks the page to show the browser's prompt through a DOM event.
 */
export function InstallPrompt({ title, body, accept, dismiss }: InstallPromptProps) {
  const [open, setOpen] = useState(true);
  if (!open) return null;
  const answer = (choice: "accept" | "dismiss") => {
    setOpen(false);
    document.dispatchEvent(new CustomEvent(`install:${choice}`));
  };
  return (
    <div
      role="dialog"
      aria-labelledby="install-title"
      className="fixed inset-x-0 bottom-20 z-40 mx-auto w-[calc(100%-2rem)] max-w-sm card p-4"
      data-hydrated="true"
    >
      <div className="flex items-start gap-3">
        <img src="/static/icon.svg" alt="" width={40} height={40} className="rounded-xl" />
        <div className="min-w-0 flex-1">
          <p id="install-title" className="font-semibold">
            {title}
          </p>
          <p className="text-sm text-muted">{body}</p>
        </div>
      </div>
      <div className="mt-3 flex justify-end gap-2">
        <button type="button" className="btn btn-ghost" onClick={() => answer("dismiss")}>
          {dismiss}
        </button>
        <button type="button" className="btn btn-primary" onClick={() => answer("accept")}>
          {accept}
        </button>
      </div>
    </div>
  );
}

export const mount = mountWith(InstallPrompt);
