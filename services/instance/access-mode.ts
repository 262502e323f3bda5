import type { AccessMode } from "./instance.contract.js";
import type { InstanceDeps } from "./instance-deps.js";

/** The ACCESS setting's mode (contract 2.2): PUBLIC only when stored so; cached. */
export function readAccessMode(deps: Pick<InstanceDeps, "store" | "caches">): Promise<AccessMode> {
	return deps.caches.accessMode.getOrLoad("accessMode", async () => {
		const stored = await deps.store.stored("ACCESS");
		return stored?.accessMode === "INSTANCE_ACCESS_MODE_PUBLIC" ? "INSTANCE_ACCESS_MODE_PUBLIC" : "INSTANCE_ACCESS_MODE_PRIVATE";
	});
}
