import type { Page } from "@playwright/test";
import type { Seeded } from "./seed";

/** Every page of the dashboard, with the seeded ids filled in (detail pages included). */
export function everyPage(s: Seeded): { name: string; url: string }[] {
  const [a, b] = s.runs;
  return [
    { name: "home", url: "/" },
    { name: "runs", url: "/runs" },
    { name: "run", url: `/runs/${b}` },
    { name: "run cell", url: `/runs/${b}?case=${s.firstCase}&criterion=correctness` },
    { name: "compare", url: `/runs/compare?a=${a}&b=${b}` },
    { name: "memory", url: "/memory" },
    { name: "study", url: `/memory/${s.collection}` },
    { name: "annotate", url: `/memory/${s.collection}/annotate` },
    { name: "reviews", url: "/reviews" },
    { name: "review", url: `/reviews/${s.review}` },
    { name: "agreement", url: "/agreement" },
    { name: "criteria", url: "/criteria" },
    { name: "criterion (llm)", url: "/criteria/correctness" },
    { name: "criterion (deterministic)", url: "/criteria/contains" },
    { name: "settings", url: "/settings" },
    { name: "audit log", url: "/audit" },
    { name: "not found", url: "/no-such-page" },
  ];
}

/**
 * The elements that reach past the right edge of the window and are not inside a scroll container
 * that keeps them in (outermost first, at most `max`), described as `tag#id.class [testid] right=…`.
 */
export async function overflowingElements(page: Page, max = 6): Promise<string[]> {
  return page.evaluate((max) => {
    const limit = window.innerWidth + 0.5;
    // whether a scroll (or clipping) container keeps the element in: only an ancestor that is also its
    // containing block clips it (an absolute element escapes static ancestors, a fixed one all)
    const clipped = (el: Element): boolean => {
      let position = getComputedStyle(el).position;
      for (let p = el.parentElement; p && p !== document.body && position !== "fixed"; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (position === "absolute" && style.position === "static") continue;
        const ox = style.overflowX;
        if (
          (ox === "auto" || ox === "scroll" || ox === "hidden" || ox === "clip") &&
          p.getBoundingClientRect().right <= limit
        )
          return true;
        position = style.position;
      }
      return false;
    };
    const out: string[] = [];
    const seen = new Set<Element>();
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      if (out.length >= max) break;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= limit || clipped(el)) continue;
      // only the outermost offender of a subtree
      let inner = false;
      for (let p = el.parentElement; p; p = p.parentElement) if (seen.has(p)) inner = true;
      seen.add(el);
      if (inner) continue;
      const cls = typeof el.className === "string" ? el.className.split(/\s+/).slice(0, 4).join(".") : "";
      const testId = el.getAttribute("data-testid");
      out.push(
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${cls ? `.${cls}` : ""}${testId ? ` [${testId}]` : ""} right=${Math.round(r.right)}`,
      );
    }
    return out;
  }, max);
}
