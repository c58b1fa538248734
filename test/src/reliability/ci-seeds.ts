/** The seeds `npm test` runs (and `npm run test:reliability` without options): fixed, so CI is reproducible. */
export const CI_SEEDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
