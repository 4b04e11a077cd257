/** @jsxImportSource react */
import { createElement, type ComponentType } from "react";
import { createRoot } from "react-dom/client";

/** Each island module exports `mount`, made here, so React loads only with an island. */
export function mountWith<P extends object>(Component: ComponentType<P>) {
  return (element: HTMLElement, props: P) => {
    createRoot(element).render(createElement(Component, props));
  };
}
