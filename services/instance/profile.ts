import { deepFreeze, noteJson } from "../../shared/encoded-json.js";
import type { ApiCompat } from "../../shared/runtime/config.js";
import { VERSION } from "../../shared/version.js";
import type { SetupState } from "../auth/auth.contract.js";
import { readAccessMode } from "./access-mode.js";
import type { AccessMode } from "./instance.contract.js";
import type { InstanceDeps } from "./instance-deps.js";

/** The InstanceProfile message of contract 4.10 and the API_COMPAT mode (contract 18); `admin` is omitted when there is none. */
export function toProfileJson(setup: SetupState, accessMode: AccessMode, env: { instanceUrl: string; commit: string; apiCompat: ApiCompat }): Record<string, unknown> {
	return {
		version: VERSION,
		demo: false,
		instanceUrl: env.instanceUrl,
		...(setup.admin ? { admin: setup.admin } : {}),
		commit: env.commit,
		needsSetup: setup.userCount === 0,
		accessMode,
		apiCompat: env.apiCompat
	};
}

type ProfileEnv = InstanceDeps["env"];

/**
 * The last profile answered, with the facts it was made of. Every client asks for the profile
 * when it starts, and it changes only with those facts (the setup state is the cached object
 * itself, replaced when the cache drops it): it is encoded once, and its own copy (nothing of the
 * cached facts is frozen) is kept with that text noted (shared/encoded-json.ts), so an embedded
 * gateway sends the text rather than encoding the profile again.
 */
let last: { setup: SetupState; accessMode: AccessMode; env: ProfileEnv; profile: Record<string, unknown> } | undefined;

function sameEnv(a: ProfileEnv, b: ProfileEnv): boolean {
	return a.instanceUrl === b.instanceUrl && a.commit === b.commit && a.apiCompat === b.apiCompat;
}

/** GetInstanceProfile (contract 4.10): open to everyone, from cached facts. */
export async function getProfile(deps: InstanceDeps): Promise<Record<string, unknown>> {
	const [setup, accessMode] = await Promise.all([deps.caches.setup.getOrLoad("setup", () => deps.peers.setupState()), readAccessMode(deps)]);
	if (last !== undefined && last.setup === setup && last.accessMode === accessMode && sameEnv(last.env, deps.env)) return last.profile;
	const text = JSON.stringify(toProfileJson(setup, accessMode, deps.env));
	const profile = deepFreeze(JSON.parse(text) as Record<string, unknown>);
	noteJson(profile, text);
	last = { setup, accessMode, env: { ...deps.env }, profile };
	return profile;
}
