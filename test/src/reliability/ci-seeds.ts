/** The seeds `npm test` runs (and `npm run test:reliability` without options): fixed, so CI is reproducible. */
export const CI_SEEDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
/** The seeds `npm test` also runs in process mode (the server and the operator each in a process of its own). */
export const CI_PROCESS_SEEDS: readonly number[] = [11, 12, 13];
