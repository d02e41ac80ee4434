// A virtual clock and a sleep that advances it, so retry tests run in no time.
export function virtualTime(start = 1_000_000) {
  let t = start;
  const sleeps = [];
  return {
    now: () => t,
    sleeps,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
