import { checkStagedEvents } from "@earshot/platform/testing";
import { createApiKey, revokeApiKey } from "./domain/api-keys";
import { deactivateUser, reactivateUser, updateUser } from "./domain/users";
import { ACCOUNT_EVENTS } from "./events";
import { newUser, openAccountWorld } from "./test-support";

// Every event the service stages carries, as data, exactly the proto JSON form of its type's message in
// events.proto, and every type of the catalog is staged by some verb: a type without a message cannot be
// declared, and one no verb stages is noticed here.

describe("account events", () => {
  it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await updateUser(world.deps, user._id, { name: "Ana Lima" });
    const { key } = await createApiKey(world.deps, { userId: user._id, scopes: ["projects:read"], expiresAt: new Date(world.clock.now().getTime() + 86_400_000), granterScopes: [], operator: true });
    await createApiKey(world.deps, { userId: user._id, scopes: ["mcp"], granterScopes: [], operator: true });
    await revokeApiKey(world.deps, user._id, key._id);
    await deactivateUser(world.deps, user._id, "DELETE");
    await reactivateUser(world.deps, user.email);

    const { covered, problems } = checkStagedEvents(ACCOUNT_EVENTS, await world.events());
    expect(problems).toEqual([]);
    expect(covered).toEqual(new Set(ACCOUNT_EVENTS.types));
  });
});
