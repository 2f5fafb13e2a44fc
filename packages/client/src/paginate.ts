/** One page of a list and how to ask for the next (null: this was the last). */
export interface Page<T, Next> {
  items: T[];
  next: Next | null;
}

/**
 * A list as an async iterable: `for await (const session of client.checkoutSessions.list({status: 'completed'}))`
 * walks every page, asking for the next one only when the loop gets there. `pages()` walks whole pages.
 */
export class ListIterator<T, Next = unknown> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (next: Next | null) => Promise<Page<T, Next>>) {}

  async *pages(): AsyncGenerator<T[], void, undefined> {
    let next: Next | null = null;
    do {
      const page: Page<T, Next> = await this.fetchPage(next);
      yield page.items;
      next = page.next;
    } while (next !== null);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const items of this.pages()) yield* items;
  }

  /** Every item (of at most `max`, default 10,000), in order. */
  async toArray(max = 10_000): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) {
      if (all.length >= max) break;
      all.push(item);
    }
    return all;
  }
}

/** Lists walked by an opaque cursor (stable while new items arrive). */
export const byCursor = <T>(load: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>) =>
  new ListIterator<T, string>(async (cursor) => {
    const { items, nextCursor } = await load(cursor ?? undefined);
    return { items, next: nextCursor };
  });

/** Lists walked by page number: an item created while walking may shift one onto the next page twice. */
export const byPage = <T>(load: (page: number) => Promise<{ items: T[]; hasNextPage: boolean; page: number }>) =>
  new ListIterator<T, number>(async (next) => {
    const { items, hasNextPage, page } = await load(next ?? 1);
    return { items, next: hasNextPage && items.length ? page + 1 : null };
  });
