export function KeyStatus({ keys }: { keys: { name: string; present: boolean }[] }) {
  return (
    <ul className="space-y-1 text-sm" data-testid="key-status">
      {keys.map((k) => (
        <li key={k.name} className="flex items-center gap-2">
          <span
            className={`inline-block h-2 w-2 rounded-full ${k.present ? "bg-green-600" : "bg-zinc-300"}`}
            aria-hidden
          />
          <code>{k.name}</code>
          <span className="text-xs text-zinc-500">{k.present ? "set" : "not set"}</span>
        </li>
      ))}
    </ul>
  );
}
