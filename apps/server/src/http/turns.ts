// Turns of the event loop for work that comes in many pieces (a CSV export's batches, a page's
// first data): each waiter is let go on a turn of its own (a setImmediate each), in the order they
// asked, so ten such jobs run one piece between two polls for I/O, not ten, and the server's other
// requests are answered in between. A piece is kept under a few milliseconds by its owner.

/** A queue of turns: `await turn()` before each piece of work. */
export function takeTurns(): () => Promise<void> {
  const waiting: Array<() => void> = [];
  let pumping = false;
  const pump = () => {
    const next = waiting.shift();
    if (!next) {
      pumping = false;
      return;
    }
    next();
    setImmediate(pump);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!pumping) {
        pumping = true;
        setImmediate(pump);
      }
    });
}
