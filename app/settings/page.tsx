import { connection } from "next/server";
import { KeyStatus } from "@/components/settings/key-status";
import { SettingsForm } from "@/components/settings/settings-form";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { presentEndpointKeys } from "@/lib/env/secrets";
import { keyPresence } from "@/lib/providers/get-model";
import { readStoredSettings } from "@/lib/settings/store";

export default async function SettingsPage() {
  await connection();
  const { settings, problems } = await readStoredSettings(getDb());
  const endpointKeys = settings.endpoints.flatMap((e) => (e.apiKeyEnv ? [e.apiKeyEnv] : []));
  const keys = [
    ...keyPresence(),
    ...endpointKeys.map((name) => ({ name, present: Boolean(process.env[name]) })),
  ];
  return (
    <div className="space-y-4">
      <PageTitle>Settings</PageTitle>
      <Card title="API keys in the server's environment (values are never shown)">
        <KeyStatus keys={keys} />
      </Card>
      <Card>
        <SettingsForm initial={settings} presentKeys={presentEndpointKeys()} storedProblems={problems} />
      </Card>
    </div>
  );
}
