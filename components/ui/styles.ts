/** Shared class strings, so every control gets the same focus ring, radius and colours. */

export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";

export const container = "mx-auto w-full max-w-7xl px-4 sm:px-6 lg:px-8";

const buttonBase =
  "inline-flex items-center justify-center gap-2 rounded-lg text-sm font-semibold transition-colors disabled:cursor-not-allowed disabled:opacity-60 " +
  focusRing;

export const buttonPrimary = `${buttonBase} bg-indigo-600 px-4 py-2.5 text-white shadow-sm hover:bg-indigo-700 active:bg-indigo-800`;

export const buttonSecondary = `${buttonBase} border border-slate-300 bg-white px-4 py-2.5 text-slate-800 shadow-sm hover:bg-slate-50`;

export const inputBase =
  "block w-full rounded-lg border border-slate-300 bg-white px-3 py-2.5 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 " +
  "focus-visible:border-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600";

export const textLink = `rounded-sm font-medium text-indigo-700 underline-offset-4 hover:underline ${focusRing}`;

export const card = "rounded-2xl border border-slate-200 bg-white shadow-sm";
