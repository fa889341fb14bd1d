import type { ReactNode } from "react";
import { container } from "@/components/ui/styles";

/** The narrow, centred column every checkout page sits in. */
export function CheckoutFrame({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  return (
    <div className={`${container} py-8 sm:py-12`}>
      <div className={`mx-auto w-full ${wide ? "max-w-4xl" : "max-w-2xl"}`}>{children}</div>
    </div>
  );
}
