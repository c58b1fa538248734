/**
 * The keys of a `WorkQueue` that may start, by priority (controller-runtime's priority queue): the
 * highest priority first, first in first out within one priority, so keys of one level take turns.
 *
 * A key raised to a higher priority while it waits is pushed again at the new level; its old entry
 * is left behind and skipped when reached (an entry is valid only while it carries the key's latest
 * ticket), so no search or removal in the middle of a level is ever needed.
 */

/** Default priority of an item: what `add` uses when given none. */
export const DEFAULT_PRIORITY = 0;

/**
 * Priority of adds from an informer's initial list and of resyncs (controller-runtime's
 * `handler.LowPriority`): they wait behind fresh changes.
 */
export const LOW_PRIORITY = -100;

/** What the ready queue keeps per key. */
export interface ReadyEntry {
  /** The ticket of the key's valid entry; 0 when it is not in the ready queue. */
  readyTicket: number;
}

export class ReadyQueue<E extends ReadyEntry> {
  /** Levels by priority; `order` lists their priorities from the highest. */
  private readonly levels = new Map<number, TicketFifo<E>>();
  private order: number[] = [];
  private tickets = 0;
  private valid = 0;

  /** Priority levels held now (emptied ones but the default are dropped when reached). */
  get levelCount(): number {
    return this.levels.size;
  }

  /** Keys waiting (each counted once, whatever stale entries remain). */
  get length(): number {
    return this.valid;
  }

  /** Puts `entry` at the back of level `priority` (a non-finite one counts as the default); an entry already waiting elsewhere is moved there. */
  push(entry: E, priority: number): void {
    if (!Number.isFinite(priority)) priority = DEFAULT_PRIORITY;
    if (entry.readyTicket === 0) this.valid++;
    entry.readyTicket = ++this.tickets;
    this.level(priority).push(entry, entry.readyTicket);
  }

  /** Takes the front entry of the highest non-empty level; levels found empty are dropped (priorities are open-ended). */
  shift(): E | undefined {
    let found: E | undefined;
    let drained = 0;
    for (let i = 0; i < this.order.length && found === undefined; i++) {
      const priority = this.order[i]!;
      const fifo = this.levels.get(priority)!;
      for (;;) {
        const entry = fifo.shift();
        if (entry === undefined) {
          if (priority !== DEFAULT_PRIORITY) {
            this.levels.delete(priority);
            drained++;
          }
          break;
        }
        if (entry.readyTicket !== fifo.lastTicket) continue; // moved to another level, or pushed again later
        entry.readyTicket = 0;
        this.valid--;
        found = entry;
        break;
      }
    }
    if (drained > 0) this.order = this.order.filter((p) => this.levels.has(p));
    return found;
  }

  /** Forgets `entry` if it waits (its entry becomes stale). */
  remove(entry: E): void {
    if (entry.readyTicket === 0) return;
    entry.readyTicket = 0;
    this.valid--;
  }

  clear(): void {
    this.levels.clear();
    this.order = [];
    this.valid = 0;
  }

  private level(priority: number): TicketFifo<E> {
    let fifo = this.levels.get(priority);
    if (fifo === undefined) {
      fifo = new TicketFifo<E>();
      this.levels.set(priority, fifo);
      this.order = [...this.levels.keys()].sort((a, b) => b - a);
    }
    return fifo;
  }
}

/** An array-backed FIFO of entries with their tickets (parallel arrays: no object per push), O(1) amortised shift. */
class TicketFifo<E> {
  /** The ticket of the entry returned by the last `shift`. */
  lastTicket = 0;
  private entries: (E | undefined)[] = [];
  private ticketsOf: number[] = [];
  private head = 0;

  push(entry: E, ticket: number): void {
    this.entries.push(entry);
    this.ticketsOf.push(ticket);
  }

  shift(): E | undefined {
    if (this.head >= this.entries.length) return undefined;
    const entry = this.entries[this.head];
    this.lastTicket = this.ticketsOf[this.head]!;
    this.entries[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.ticketsOf = this.ticketsOf.slice(this.head);
      this.head = 0;
    }
    return entry;
  }
}
