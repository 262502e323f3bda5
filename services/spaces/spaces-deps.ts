import type { EventRef } from "../../shared/contract.js";
import type { UserRef } from "../auth/auth.contract.js";
import type { SpaceMemberEvent } from "./spaces.contract.js";
import type { SpacesStore } from "./spaces-store.js";

/** The other services, as the space rules need them; bound to the request they serve. */
export interface SpacesPeers {
	/** Users by internal id, in one `auth.lookupUsers` call; unknown ids are absent. */
	usersById(ids: Iterable<string>): Promise<Map<string, UserRef>>;
	/** The user of a username, or undefined when there is none. */
	userByName(username: string): Promise<UserRef | undefined>;
	/** How many memos are placed in the space. */
	spaceMemoCount(spaceId: string): Promise<number>;
	/** Takes the space's memos out of it (SPACE memos become PRIVATE). */
	detachSpace(spaceId: string): Promise<void>;
}

/** What the space rules need, handed to the plain modules by the service (and by tests). */
export interface SpacesDeps {
	store: SpacesStore;
	peers: SpacesPeers;
	/** Broadcasts a membership change to every node (caches of memberships drop those users). */
	announce(event: EventRef<SpaceMemberEvent>, payload: SpaceMemberEvent): Promise<void>;
}
