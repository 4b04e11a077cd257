/**
 * A titled part of a page holding a list: the list's items, or the one sentence that says there
 * are none. The heading names the section for screen readers (a region landmark).
 */
export function ListSection({ id, title, empty, items, class: className = "" }: { id: string; title: string; empty: string; items: JSX.Element[]; class?: string }) {
  return (
    <section aria-labelledby={id} class={className}>
      <h2 id={id} class="mb-2 text-lg font-semibold" safe>
        {title}
      </h2>
      {items.length === 0 ? (
        <p class="card p-4 text-sm text-muted" safe>
          {empty}
        </p>
      ) : (
        <ul class="flex flex-col gap-3">{items}</ul>
      )}
    </section>
  );
}
