"use server";

import { revalidatePath } from "next/cache";
import { allowAction } from "@/app/guard";
import { getDb } from "@/db/client";
import { type ActionResult, actionFailed } from "@/lib/action-result";
import { fieldErrorsOf, type Settings, settingsSchema } from "@/lib/settings/schema";
import { writeSettings } from "@/lib/settings/store";
import { wrongShape } from "@/lib/validations/form-data";

export type SaveSettingsState = ActionResult<{ savedAt: number }> | null;

export async function saveSettings(_prev: SaveSettingsState, formData: FormData): Promise<SaveSettingsState> {
  const allowed = await allowAction("saveSettings");
  if ("refused" in allowed) return allowed.refused;
  const bad = wrongShape(formData, "form data");
  if (bad) return bad;
  const raw = formData.get("payload");
  let input: unknown;
  try {
    input = JSON.parse(typeof raw === "string" ? raw : "");
  } catch {
    return actionFailed("The form sent no readable settings.");
  }
  const parsed = settingsSchema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors = fieldErrorsOf(parsed.error);
    const n = Object.keys(fieldErrors).length;
    return actionFailed(
      `Nothing saved: ${n} field${n === 1 ? "" : "s"} need${n === 1 ? "s" : ""} fixing.`,
      fieldErrors,
    );
  }
  await writeSettings(getDb(), parsed.data satisfies Settings, allowed.actor.name);
  revalidatePath("/", "layout");
  return { ok: true, data: { savedAt: Date.now() } };
}
