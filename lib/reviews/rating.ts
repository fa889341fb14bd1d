/** One decimal, as every output shows an average rating (the stored average is unrounded). */
export const roundAverage = (average: number): number => Math.round(average * 10) / 10;
