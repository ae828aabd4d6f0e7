import { connection } from "next/server";
import { SettingsModal } from "@/components/settings/settings-modal";
import { EmptyState, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { readSettings } from "@/lib/settings/store";

export default async function RunsPage() {
  await connection();
  const settings = readSettings(getDb());
  return (
    <div>
      <PageTitle actions={<SettingsModal initial={settings} />}>Runs</PageTitle>
      <EmptyState title="No runs yet" testId="runs-empty">
        Choose the judges and N with <strong>Judge settings</strong>, then start a run.
      </EmptyState>
    </div>
  );
}
