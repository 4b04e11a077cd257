/**
 * The server side of a React island: a wrapper with the island's name and serializable props,
 * holding fallback HTML that works before (or without) JavaScript. islands/loader.ts mounts it.
 * Every island's props travel this one way: JSON in data-props, which the JSX runtime
 * (lib/html/jsx-runtime.ts) escapes in full, so the loader's JSON.parse reads exactly this.
 */
export function Island({
  name,
  props,
  children,
  class: className,
}: {
  name: string;
  props: Record<string, unknown>;
  children?: JSX.Element;
  class?: string;
}) {
  return (
    <div data-island={name} data-props={JSON.stringify(props)} class={className}>
      {children as "safe"}
    </div>
  );
}
