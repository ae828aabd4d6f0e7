import Link from "next/link";
import { connection } from "next/server";
import { KeyStatus } from "@/components/settings/key-status";
import { SettingsForm } from "@/components/settings/settings-form";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getSettingsSaved } from "@/db/queries/settings";
import { presentEndpointKeys } from "@/lib/env/secrets";
import { keyPresence } from "@/lib/providers/get-model";
import { readStoredSettings } from "@/lib/settings/store";

export default async function SettingsPage() {
  await connection();
  const db = getDb();
  const { settings, problems } = await readStoredSettings(db);
  const saved = await getSettingsSaved(db);
  const endpointKeys = settings.endpoints.flatMap((e) => (e.apiKeyEnv ? [e.apiKeyEnv] : []));
  const keys = [
    ...keyPresence(),
    ...endpointKeys.map((name) => ({ name, present: Boolean(process.env[name]) })),
  ];
  return (
    <div className="space-y-4">
      <PageTitle
        actions={
          <p className="text-sm text-zinc-600" data-testid="settings-saved-by">
            {saved
              ? `Last saved${saved.by ? ` by ${saved.by}` : ""} · ${saved.at.toISOString().slice(0, 16).replace("T", " ")} UTC · `
              : "Never saved: these are the defaults · "}
            <Link href="/audit" className="text-indigo-700 underline">
              Audit log
            </Link>
          </p>
        }
      >
        Settings
      </PageTitle>
      <Card title="API keys in the server's environment (values are never shown)">
        <KeyStatus keys={keys} />
      </Card>
      <Card>
        <SettingsForm initial={settings} presentKeys={presentEndpointKeys()} storedProblems={problems} />
      </Card>
    </div>
  );
}
