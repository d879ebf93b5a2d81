// Generated from r3's OpenAPI document by openapi-typescript: `npm run client:generate`.
export interface paths {
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** r3's OAuth authorization-server metadata (RFC 8414): its endpoints, the authorization-code grant with PKCE S256, refresh tokens, public clients, Client ID Metadata Documents. */
        get: operations["getWellKnownOauthAuthorizationServer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The MCP endpoint's OAuth protected-resource metadata (RFC 9728): its resource URL, r3 as its authorization server, the scopes. */
        get: operations["getWellKnownOauthProtectedResource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/api/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The MCP endpoint's OAuth protected-resource metadata (RFC 9728): its resource URL, r3 as its authorization server, the scopes. */
        get: operations["getWellKnownOauthProtectedResourceApiMcp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{version}/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OpenAPI 3.1 document of this API (404 for an unknown version). */
        get: operations["getApiByVersionOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** 405: the stateless MCP endpoint opens no event stream (POST only). */
        get: operations["getApiMcp"];
        put?: never;
        /** MCP (streamable HTTP, stateless, JSON responses): tools/list and tools/call for the token. */
        post: operations["postApiMcp"];
        /** 405: the stateless MCP endpoint has no session to end (POST only). */
        delete: operations["deleteApiMcp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/actors/{kind}/{id}/transitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An actor's transition log, oldest first: {transitions: [{seq, event, from, to, at, by}]} (at most 5,000). */
        get: operations["getActorsByKindByIdTransitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agents of the org by slug: `{agents, nextCursor}`. */
        get: operations["getAgents"];
        put?: never;
        /** Creates an agent (201 with its detail; 409 when the slug exists). */
        post: operations["postAgents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One agent with its system prompt and its wired `skills` and `workflows`. */
        get: operations["getAgentsBySlug"];
        put?: never;
        post?: never;
        /** Deletes a agent (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteAgentsBySlug"];
        options?: never;
        head?: never;
        /** Updates any subset of an agent’s fields, the system prompt included. */
        patch: operations["patchAgentsBySlug"];
        trace?: never;
    };
    "/api/v1/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: the org's artifacts in the order they were made, of one run (runId) and/or mission run (missionRunId): {artifacts, nextCursor}. */
        get: operations["getArtifacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/artifacts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: one artifact's metadata. */
        get: operations["getArtifactsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/artifacts/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: the artifact's bytes with its media type; Content-Disposition attachment unless a raster image. */
        get: operations["getArtifactsByIdContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit/reviews": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The decision ledger of the caller’s org, oldest first: every review event as a hash chain; kind=, id= filter; {entries, nextCursor}. */
        get: operations["getAuditReviews"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/evaluations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One evaluation: its status, each original beside its shadow run, and the summary. */
        get: operations["getEvaluationsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/evaluations/{id}/marks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark one pair of an evaluation: the shadow output better, the same or worse than the approved one (null clears the mark); answers the evaluation. */
        post: operations["postEvaluationsByIdMarks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/machines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: the persisted actor kinds and their machine versions. */
        get: operations["getMachines"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/machines/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: a machine's definition (xstate toJSON), for the Stately visualizer. */
        get: operations["getMachinesByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mission-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Mission runs of the org, newest first: `{missionRuns, nextCursor}` (filter by status). */
        get: operations["getMissionRuns"];
        put?: never;
        /** Start a mission run from a mission ({missionSlug, input?}) or ad hoc ({team, goal, input?}); 202 {missionRunId, status, pollUrl}. */
        post: operations["postMissionRuns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mission-runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One mission run: status, goal, input, plan (tasks with status, runId, output), artifacts, review. */
        get: operations["getMissionRunsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mission-runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a mission run that is planning, awaiting_review or executing (its running child runs too); 409 otherwise. */
        post: operations["postMissionRunsByIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mission-runs/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The mission run's events as server-sent events: replayed after Last-Event-ID, then live. */
        get: operations["getMissionRunsByIdStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/missions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Missions of the org by slug (slug, name, description): `{missions, nextCursor}`. */
        get: operations["getMissions"];
        put?: never;
        /** Creates a mission (201 with its detail; 409 when the slug exists; 400 when a team agent is unknown or inactive). */
        post: operations["postMissions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/missions/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One mission’s manifest: goal, inputSchema, team, planner, review, limits. */
        get: operations["getMissionsBySlug"];
        put?: never;
        post?: never;
        /** Deletes a mission (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteMissionsBySlug"];
        options?: never;
        head?: never;
        /** Updates any subset of a mission’s fields (goal, team, planner, review, limits, …). */
        patch: operations["patchMissionsBySlug"];
        trace?: never;
    };
    "/api/v1/oauth/requests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The consent page: an authorization request — the client, the scopes asked, those the caller would grant, its status. */
        get: operations["getOauthRequestsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/requests/{id}/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The consent page's Allow / Deny (a browser session only): answers the client's redirect URI the browser goes to, with the code or error=access_denied. */
        post: operations["postOauthRequestsByIdDecision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/objects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Instances of the org, newest first, optionally of one type and/or status: `{objects, nextCursor}`. */
        get: operations["getObjects"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/objects/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One instance with its content, its linked `documents` and the `runs` that used it. */
        get: operations["getObjectsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Updates metadata (replaced whole) or status; title and content too. Answers the detail. */
        patch: operations["patchObjectsById"];
        trace?: never;
    };
    "/api/v1/objects/{slug}/instances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingests an instance of type `slug`: 201 `{id, slug, title, createdAt}`; indexed for search at once. */
        post: operations["postObjectsBySlugInstances"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/objects/types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Object types of the org by slug, with their metadata schema: `{types, nextCursor}`. */
        get: operations["getObjectsTypes"];
        put?: never;
        /** Creates an object type (201 with its detail; 409 when the slug exists). */
        post: operations["postObjectsTypes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/objects/types/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One object type with its `sourceRelevance` weights. */
        get: operations["getObjectsTypesBySlug"];
        put?: never;
        post?: never;
        /** Deletes a object type (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteObjectsTypesBySlug"];
        options?: never;
        head?: never;
        /** Extension: updates any subset of an object type’s fields. */
        patch: operations["patchObjectsTypesBySlug"];
        trace?: never;
    };
    "/api/v1/people": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: who attribution strings name (`?actor=token:<id>&actor=user:<id>`, at most 100): {people: [{actor, kind, userId, tokenName}]}. */
        get: operations["getPeople"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: the org's proposals, newest first, optionally of one status: {proposals, nextCursor}. */
        get: operations["getProposals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A proposal: action, params, rationale, status, result, error, review and its review item; when its next attempt is due, and the synced record it changes. */
        get: operations["getProposalsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Extension: withdraw a pending proposal (cancelled, never executed; its review item leaves the queue). 409 once decided. */
        post: operations["postProposalsByIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: a proposal as server-sent events: what happened so far, then live, until it is executed, failed, rejected or cancelled. */
        get: operations["getProposalsByIdStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/review-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Review policies of the org by slug: `{reviewPolicies, nextCursor}`. */
        get: operations["getReviewPolicies"];
        put?: never;
        /** Creates a review policy (201 with its detail; 409 when the slug exists; 400 for an unknown role or user, required outside 1–5, remindBefore longer than dueIn, escalate without escalateTo; 403 without the approve capability). */
        post: operations["postReviewPolicies"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/review-policies/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One review policy: approvers, required, selfApproval, deadlines, and `usedBy` (the skills, workflow gates, missions and agents that name it). */
        get: operations["getReviewPoliciesBySlug"];
        put?: never;
        post?: never;
        /** Deletes a review policy (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteReviewPoliciesBySlug"];
        options?: never;
        head?: never;
        /** Updates any subset of a review policy’s fields (`null` removes an optional one). */
        patch: operations["patchReviewPoliciesBySlug"];
        trace?: never;
    };
    "/api/v1/reviews": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The review queue, oldest first (sort=due: soonest due first, items without a due time last): active items (not snoozed, or snooze passed); assignedTo=<userId>|unassigned, includeSnoozed=true, overdue=true|false; {reviews, nextCursor}. */
        get: operations["getReviews"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/{kind}/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One review item — the open one of the subject, else its last one — with its subject as the subject’s GET answers it (and, for skill and workflow runs, `steps`: the run’s steps with each skill step’s outputSchema); `ETag` is the open item’s revision. */
        get: operations["getReviewsByKindById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/assign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Assign a review item to a user of the org (null: back to triage) with a note; the refreshed queue. */
        post: operations["postReviewsAssign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/decide": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or reject a review item (skill: approve/reject; workflow, mission: resume/cancel; action: execute/drop), or send a skill draft or a mission plan back with `request_changes` and a `reason` (the model drafts again; the new draft is a new item, at most 5 rounds); {ok, reviews, nextCursor}. 409 when it is no longer in the queue, when `revision` (or If-Match) is not current (details {reason: "stale", revision}), or after 5 rounds (details {reason: "max_rounds"}). */
        post: operations["postReviewsDecide"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/decide-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or reject 1–100 review items at once, all or nothing: 409 details.items [{kind, id, reason: not_found|stale|not_open}] and nothing decided; else {ok, decided, reviews, nextCursor}. Each item is one rate-limit unit. */
        post: operations["postReviewsDecideBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/snooze": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Hide a review item from the active queue until `until` (future); the refreshed queue. */
        post: operations["postReviewsSnooze"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's review events as server-sent events (live only; `ready` once subscribed, then one `review.*` event per change of an item). */
        get: operations["getReviewsStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reviews/undo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw a decision taken with delaySeconds before its effectiveAt: the item is open again (new revision); the refreshed queue. 409 when the item holds no such decision or effectiveAt has come. */
        post: operations["postReviewsUndo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Skill and workflow runs of the org, newest first, filtered; {runs, nextCursor}. */
        get: operations["getRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run. */
        get: operations["getRunsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a pending skill run or a paused workflow run; 409 from any other status, or when `revision` (or If-Match) is stale. */
        post: operations["postRunsByIdApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a running, paused or pending run (a hard stop); 409 otherwise. */
        post: operations["postRunsByIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rate any run (up, down, or null to clear) with an optional note; feedbackAt always updates. */
        post: operations["postRunsByIdFeedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fork a run that is not running: a new run of its skill or workflow (a workflow from `fromStep`, earlier results copied); 202. */
        post: operations["postRunsByIdFork"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a pending skill run, or a paused workflow run (cancels it); 409 otherwise, or when `revision` (or If-Match) is stale. */
        post: operations["postRunsByIdReject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replay a skill run on a workspace version: equal tool calls answered from the run's record, writing tools refused; 202. */
        post: operations["postRunsByIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The run's events as server-sent events: replayed after Last-Event-ID, then live, until the terminal event. */
        get: operations["getRunsByIdStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/transitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension (debugging): the run's transition log and its review items', oldest first. */
        get: operations["getRunsByIdTransitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Hybrid search over object instances: `{results: [{id, type, title, snippet, score, url}]}`. */
        get: operations["getSearch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the caller is: the session (with its CSRF token), or the Bearer token’s principal. */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /** Sign out: ends the browser session server-side and clears its cookie. */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Browser sign-in: start a session from a sign-in link code (`link`) or a pasted API token (`token`); sets the HttpOnly session cookie. Needs a same-origin Origin. */
        post: operations["postSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Skills of the org by slug, optionally of one status and/or category: `{skills, nextCursor}`. */
        get: operations["getSkills"];
        put?: never;
        /** Creates a prompt skill from `{manifest, promptMd}` (201 with its detail; 409 when the slug exists). */
        post: operations["postSkills"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One skill: its manifest fields and its prompt template `promptMd`. */
        get: operations["getSkillsBySlug"];
        put?: never;
        post?: never;
        /** Deletes a skill (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteSkillsBySlug"];
        options?: never;
        head?: never;
        /** Updates manifest fields (`manifest`, any subset) and/or the prompt (`promptMd`). */
        patch: operations["patchSkillsBySlug"];
        trace?: never;
    };
    "/api/v1/skills/{slug}/evaluations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Evaluate a workspace version of a skill: its last reviewed runs replayed on it as shadow runs (no review, no webhook), compared with what reviewers approved; 202 {evaluationId, statusUrl}. */
        post: operations["postSkillsBySlugEvaluations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{slug}/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Quality of the skill's runs per workspace version, newest first: runs, approvals, rejections, edits, changes requested, ratings. */
        get: operations["getSkillsBySlugQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{slug}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a skill run; 202 {runId, status, pollUrl}. Idempotent per token with idempotencyKey. */
        post: operations["postSkillsBySlugRuns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configured sources with their `connectionState`: `{sources, nextCursor}`. */
        get: operations["getSources"];
        put?: never;
        /** Extension: creates a source (201 with its detail; 409 when the slug exists). */
        post: operations["postSources"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One source: connection, retrieval overrides and the effective retrieval settings. */
        get: operations["getSourcesBySlug"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Extension: updates any subset of a source’s fields (connection, retrieval, …). */
        patch: operations["patchSourcesBySlug"];
        trace?: never;
    };
    "/api/v1/sources/{slug}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Stores the source’s credentials sealed (crm `{accessToken}`, mail `{username, password}`, meetings `{accessToken}`), for its current connection target; the answer shows `credentialsSet` and `credentialsUpdatedAt` only. Needs the role owner or pm. */
        put: operations["putSourcesBySlugCredentials"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}/reindex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queues a reindex of the source’s documents, optionally filtered: 202 with `reindexId`. */
        post: operations["postSourcesBySlugReindex"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}/reindex/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: progress of one reindex of the source. */
        get: operations["getSourcesBySlugReindexById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Starts a sync of the source into its mapped object types (202 `{syncId, status, statusUrl}`; the running sync when one runs). `full: true` reads everything, not only what changed since the last sync. */
        post: operations["postSourcesBySlugSync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}/syncs/{syncId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One sync of the source: `{syncId, status, created, updated, skipped, error, …}`. */
        get: operations["getSourcesBySlugSyncsBySyncId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{slug}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Checks the connection now (credentials, reachability): 200 `{connectionState, connectionError}`; the state is kept on the source. */
        post: operations["postSourcesBySlugTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tokens of the caller's org (owners) or of the caller's user (everyone else); never secrets. */
        get: operations["getTokens"];
        put?: never;
        /** Issue a token from the web UI (a browser session only: a Bearer token cannot issue tokens). For the caller, or for a user of the org (owners signed in by link); scopes the caller holds; from a pasted token’s session no later expiry than that token’s, revoked with it; the plaintext is in this answer only. */
        post: operations["postTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a token at once: the token itself, or any token of the org for an owner. */
        delete: operations["deleteTokensById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: the org's users by id (an assignee picker): {users: [{id, role, createdAt}], nextCursor}. */
        get: operations["getUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: one user of the org; 404 for an unknown id or another org’s user. */
        get: operations["getUsersById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's webhooks, oldest first: {webhooks, nextCursor}. */
        get: operations["getWebhooks"];
        put?: never;
        /** Registers a webhook: 201 {id, url, events, filter, active, createdAt}; the secret is not echoed. */
        post: operations["postWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One webhook. */
        get: operations["getWebhooksById"];
        put?: never;
        post?: never;
        /** Deletes a webhook and its deliveries: {id, deleted: true}. */
        delete: operations["deleteWebhooksById"];
        options?: never;
        head?: never;
        /** Updates url, events or filter; active: true re-enables a disabled webhook, false disables it. */
        patch: operations["patchWebhooksById"];
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The webhook's deliveries, newest first: {deliveries, nextCursor}. */
        get: operations["getWebhooksByIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extension: one delivery with lastError and attemptLog (status, duration, body excerpt per attempt). */
        get: operations["getWebhooksByIdDeliveriesByDeliveryId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redelivers the event as a new delivery with the current URL and secret: 202 {deliveryId}. */
        post: operations["postWebhooksByIdDeliveriesByDeliveryIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replaces the signing secret: 200 {secret} (whsec_…); the old one co-signs for the old-secret window. */
        post: operations["postWebhooksByIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Workflows of the org by slug (slug, name, description, trigger): `{workflows, nextCursor}`. */
        get: operations["getWorkflows"];
        put?: never;
        /** Creates a workflow (201 with its detail; 409 when the slug exists). */
        post: operations["postWorkflows"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workflow’s full manifest: trigger, inputSchema, steps. */
        get: operations["getWorkflowsBySlug"];
        put?: never;
        post?: never;
        /** Deletes a workflow (a new workspace version, applied); 409 while another resource names it (`details.referencedBy`). */
        delete: operations["deleteWorkflowsBySlug"];
        options?: never;
        head?: never;
        /** Updates any subset of a workflow’s fields (trigger, steps, inputSchema, name, description). */
        patch: operations["patchWorkflowsBySlug"];
        trace?: never;
    };
    "/api/v1/workflows/{slug}/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Quality of the workflow's runs per workspace version, newest first: runs, approvals, rejections, edits, changes requested, ratings. */
        get: operations["getWorkflowsBySlugQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows/{slug}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a workflow run; 202 {runId, status, pollUrl}. Idempotent per token with idempotencyKey. */
        post: operations["postWorkflowsBySlugRuns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The API reference page (Swagger UI over /api/v1/openapi.json). */
        get: operations["getDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process serves HTTP (it listens only after migrations). */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics of this process (text format 0.0.4). Needs `Authorization: Bearer <R3_METRICS_TOKEN>` when that variable is set; otherwise answered to loopback clients only. */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start signing in (authorization code, PKCE S256): redirects to the web UI's consent page, or back to the client's redirect_uri with error and state. */
        get: operations["getOauthAuthorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Dynamic client registration (RFC 7591): a public client (token_endpoint_auth_method none) with its redirect URIs (https; http only on a loopback host; or an app's own scheme). */
        post: operations["postOauthRegister"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The token endpoint (form-encoded): grant_type authorization_code (code, redirect_uri, client_id, code_verifier) or refresh_token (refresh_token, client_id; rotating). Access tokens are r3 API tokens of the person, 1 hour. */
        post: operations["postOauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database and the event bus answer. */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Def1: string | number | boolean | null | components["schemas"]["Def1"][] | {
            [key: string]: components["schemas"]["Def1"];
        };
        Def2: string | number | boolean | null | components["schemas"]["Def2"][] | {
            [key: string]: components["schemas"]["Def2"];
        };
        Def3: string | number | boolean | null | components["schemas"]["Def3"][] | {
            [key: string]: components["schemas"]["Def3"];
        };
        Def4: string | number | boolean | null | components["schemas"]["Def4"][] | {
            [key: string]: components["schemas"]["Def4"];
        };
        Def5: string | number | boolean | null | components["schemas"]["Def5"][] | {
            [key: string]: components["schemas"]["Def5"];
        };
        Def6: string | number | boolean | null | components["schemas"]["Def6"][] | {
            [key: string]: components["schemas"]["Def6"];
        };
        Def7: string | number | boolean | null | components["schemas"]["Def7"][] | {
            [key: string]: components["schemas"]["Def7"];
        };
        Def8: string | number | boolean | null | components["schemas"]["Def8"][] | {
            [key: string]: components["schemas"]["Def8"];
        };
        Def9: string | number | boolean | null | components["schemas"]["Def9"][] | {
            [key: string]: components["schemas"]["Def9"];
        };
        /** @description An error: a stable code, a human message and machine-readable details. */
        ErrorBody: {
            error: {
                /** @enum {string} */
                code: "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "VALIDATION_FAILED" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL" | "METHOD_NOT_ALLOWED";
                details: {
                    [key: string]: unknown;
                };
                message: string;
            };
        };
    };
    responses: {
        /** @description The parameters, query or body failed validation (details.issues names each field). */
        Error400: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description No valid Bearer token. */
        Error401: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The token lacks the scope (or role) this call needs. */
        Error403: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Nothing of that id in the caller’s organization (another organization’s resources are 404 too). */
        Error404: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The method is not allowed on this path (Allow lists those that are). */
        Error405: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The request conflicts with the resource’s current state. */
        Error409: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body exceeds the size limit. */
        Error413: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Rate limit exceeded (Retry-After says when to retry). */
        Error429: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Internal error (the request id in X-Request-Id finds it in the logs). */
        Error500: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getWellKnownOauthAuthorizationServer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uri */
                        authorization_endpoint: string;
                        client_id_metadata_document_supported?: boolean;
                        code_challenge_methods_supported?: string[];
                        grant_types_supported?: string[];
                        introspection_endpoint?: string;
                        introspection_endpoint_auth_methods_supported?: string[];
                        introspection_endpoint_auth_signing_alg_values_supported?: string[];
                        issuer: string;
                        /** Format: uri */
                        registration_endpoint?: string;
                        response_modes_supported?: string[];
                        response_types_supported: string[];
                        /** Format: uri */
                        revocation_endpoint?: string;
                        revocation_endpoint_auth_methods_supported?: string[];
                        revocation_endpoint_auth_signing_alg_values_supported?: string[];
                        scopes_supported?: string[];
                        /** Format: uri */
                        service_documentation?: string;
                        /** Format: uri */
                        token_endpoint: string;
                        token_endpoint_auth_methods_supported?: string[];
                        token_endpoint_auth_signing_alg_values_supported?: string[];
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getWellKnownOauthProtectedResource: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        authorization_details_types_supported?: string[];
                        authorization_servers?: string[];
                        bearer_methods_supported?: string[];
                        dpop_bound_access_tokens_required?: boolean;
                        dpop_signing_alg_values_supported?: string[];
                        /** Format: uri */
                        jwks_uri?: string;
                        /** Format: uri */
                        resource: string;
                        resource_documentation?: string;
                        resource_name?: string;
                        /** Format: uri */
                        resource_policy_uri?: string;
                        resource_signing_alg_values_supported?: string[];
                        /** Format: uri */
                        resource_tos_uri?: string;
                        scopes_supported?: string[];
                        tls_client_certificate_bound_access_tokens?: boolean;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getWellKnownOauthProtectedResourceApiMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        authorization_details_types_supported?: string[];
                        authorization_servers?: string[];
                        bearer_methods_supported?: string[];
                        dpop_bound_access_tokens_required?: boolean;
                        dpop_signing_alg_values_supported?: string[];
                        /** Format: uri */
                        jwks_uri?: string;
                        /** Format: uri */
                        resource: string;
                        resource_documentation?: string;
                        resource_name?: string;
                        /** Format: uri */
                        resource_policy_uri?: string;
                        resource_signing_alg_values_supported?: string[];
                        /** Format: uri */
                        resource_tos_uri?: string;
                        scopes_supported?: string[];
                        tls_client_certificate_bound_access_tokens?: boolean;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getApiByVersionOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["Error400"];
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getApiMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            /** @description POST only. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "VALIDATION_FAILED" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL" | "METHOD_NOT_ALLOWED";
                            details: {
                                [key: string]: unknown;
                            };
                            message: string;
                        };
                    };
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postApiMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description The JSON-RPC answer (or a batch of them). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    }) | ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    })[];
                };
            };
            /** @description Notifications only: accepted, nothing to answer. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Not JSON-RPC: a JSON-RPC error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    }) | ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    })[];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            /** @description Refused by the MCP transport: a JSON-RPC error. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    }) | ({
                        /** @constant */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    })[];
                };
            };
        };
    };
    deleteApiMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            /** @description POST only. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "VALIDATION_FAILED" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL" | "METHOD_NOT_ALLOWED";
                            details: {
                                [key: string]: unknown;
                            };
                            message: string;
                        };
                    };
                };
            };
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getActorsByKindByIdTransitions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                kind: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transitions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transitions: {
                            at: string;
                            by: string;
                            event: string;
                            from: string | null;
                            seq: number;
                            to: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getAgents: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Agents of the org by slug: `{agents, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postAgents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default true */
                    active?: boolean;
                    /** @default  */
                    description?: string;
                    name: string;
                    reviewPolicy?: string;
                    /** @default [] */
                    skillSlugs?: string[];
                    slug: string;
                    /** @default [] */
                    sourceSlugs?: string[];
                    /** @default  */
                    systemPrompt?: string;
                    tools?: {
                        allow?: string[];
                        /** @default [] */
                        deny?: string[];
                    };
                    /** @default [] */
                    workflowSlugs?: string[];
                };
            };
        };
        responses: {
            /** @description Creates an agent (201 with its detail; 409 when the slug exists). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getAgentsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One agent with its system prompt and its wired `skills` and `workflows`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteAgentsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchAgentsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    active?: boolean;
                    description?: string;
                    name?: string;
                    reviewPolicy?: string | null;
                    skillSlugs?: string[];
                    slug?: string;
                    sourceSlugs?: string[];
                    systemPrompt?: string;
                    tools?: {
                        allow?: string[];
                        /** @default [] */
                        deny?: string[];
                    };
                    workflowSlugs?: string[];
                };
            };
        };
        responses: {
            /** @description Updates any subset of an agent’s fields, the system prompt included. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getArtifacts: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                missionRunId?: number;
                runId?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of artifacts (metadata only). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifacts: {
                            bytes: number;
                            createdAt: string;
                            createdBy: string;
                            id: number;
                            mediaType: string;
                            missionRunId: number | null;
                            name: string;
                            runId: number | null;
                            sha256: string;
                            url: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getArtifactsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The artifact. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        bytes: number;
                        createdAt: string;
                        createdBy: string;
                        id: number;
                        mediaType: string;
                        missionRunId: number | null;
                        name: string;
                        runId: number | null;
                        sha256: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getArtifactsByIdContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes, as the artifact’s media type. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getAuditReviews: {
        parameters: {
            query?: {
                cursor?: string;
                id?: number;
                kind?: "skill" | "workflow" | "mission" | "action";
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the ledger. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entries: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            details: {
                                [key: string]: unknown;
                            };
                            /** @enum {string} */
                            event: "opened" | "assigned" | "snoozed" | "approval" | "decided" | "changes_requested" | "undone" | "escalated" | "timeout";
                            hash: string;
                            id: number;
                            /** @enum {string} */
                            kind: "skill" | "workflow" | "mission" | "action";
                            prevHash: string;
                            seq: number;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getEvaluationsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The evaluation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        evaluationId: number;
                        runs: {
                            approvedOutput: unknown;
                            changed: boolean;
                            mark: ("better" | "same" | "worse") | null;
                            originalRunId: number;
                            /** @enum {string} */
                            originalStatus: "approved" | "rejected";
                            shadowError: unknown;
                            shadowOutput: unknown;
                            shadowRunId: number;
                            shadowStatus: string;
                        }[];
                        skillSlug: string;
                        /** @enum {string} */
                        status: "running" | "completed" | "failed";
                        summary: {
                            changed: number;
                            failed: number;
                            total: number;
                        };
                        workspace: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postEvaluationsByIdMarks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    mark: ("better" | "same" | "worse") | null;
                    originalRunId: number;
                };
            };
        };
        responses: {
            /** @description The evaluation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        evaluationId: number;
                        runs: {
                            approvedOutput: unknown;
                            changed: boolean;
                            mark: ("better" | "same" | "worse") | null;
                            originalRunId: number;
                            /** @enum {string} */
                            originalStatus: "approved" | "rejected";
                            shadowError: unknown;
                            shadowOutput: unknown;
                            shadowRunId: number;
                            shadowStatus: string;
                        }[];
                        skillSlug: string;
                        /** @enum {string} */
                        status: "running" | "completed" | "failed";
                        summary: {
                            changed: number;
                            failed: number;
                            total: number;
                        };
                        workspace: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMachines: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: the persisted actor kinds and their machine versions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMachinesByName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: a machine's definition (xstate toJSON), for the Stately visualizer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMissionRuns: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of mission runs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        missionRuns: {
                            artifacts: {
                                bytes: number;
                                createdAt: string;
                                createdBy: string;
                                id: number;
                                mediaType: string;
                                missionRunId: number | null;
                                name: string;
                                runId: number | null;
                                sha256: string;
                                url: string;
                            }[];
                            completedAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            draftPlan: {
                                tasks: {
                                    agent: string;
                                    dependsOn: string[];
                                    id: string;
                                    instructions: string;
                                    output: {
                                        [key: string]: unknown;
                                    } | null;
                                    runId: number | null;
                                    skill: string | null;
                                    /** @enum {string} */
                                    status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                    title: string;
                                }[];
                            } | null;
                            error: {
                                code: string;
                                message: string;
                                step?: string;
                                task?: string;
                            } | null;
                            goal: string;
                            id: number;
                            input: {
                                [key: string]: unknown;
                            };
                            mission: string | null;
                            plan: {
                                tasks: {
                                    agent: string;
                                    dependsOn: string[];
                                    id: string;
                                    instructions: string;
                                    output: {
                                        [key: string]: unknown;
                                    } | null;
                                    runId: number | null;
                                    skill: string | null;
                                    /** @enum {string} */
                                    status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                    title: string;
                                }[];
                            } | null;
                            pollUrl: string;
                            review: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                /** @enum {string} */
                                decision: "approved" | "rejected";
                                edited?: boolean;
                                note: string | null;
                                onBehalfOf: string | null;
                                reason: string | null;
                                /** @description The stage decided; null for decisions recorded before it was. */
                                stage: ("plan" | "result") | null;
                            } | null;
                            reviewStage: ("plan" | "result") | null;
                            reviewUrl: string;
                            rounds: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                draft: {
                                    [key: string]: components["schemas"]["Def7"];
                                };
                                onBehalfOf: string | null;
                                reason: string;
                            }[];
                            /** @enum {string} */
                            status: "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";
                            team: {
                                agent: string;
                                role: string;
                            }[];
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postMissionRuns: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    idempotencyKey?: string;
                    input?: {
                        [key: string]: unknown;
                    };
                    missionSlug: string;
                } | {
                    goal: string;
                    idempotencyKey?: string;
                    input?: {
                        [key: string]: unknown;
                    };
                    team: string[] | {
                        agent: string;
                        /** @default  */
                        role?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description The mission run was accepted (or replayed from its idempotency key). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        missionRunId: number;
                        pollUrl: string;
                        status: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMissionRunsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The mission run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifacts: {
                            bytes: number;
                            createdAt: string;
                            createdBy: string;
                            id: number;
                            mediaType: string;
                            missionRunId: number | null;
                            name: string;
                            runId: number | null;
                            sha256: string;
                            url: string;
                        }[];
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftPlan: {
                            tasks: {
                                agent: string;
                                dependsOn: string[];
                                id: string;
                                instructions: string;
                                output: {
                                    [key: string]: unknown;
                                } | null;
                                runId: number | null;
                                skill: string | null;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                title: string;
                            }[];
                        } | null;
                        error: {
                            code: string;
                            message: string;
                            step?: string;
                            task?: string;
                        } | null;
                        goal: string;
                        id: number;
                        input: {
                            [key: string]: unknown;
                        };
                        mission: string | null;
                        plan: {
                            tasks: {
                                agent: string;
                                dependsOn: string[];
                                id: string;
                                instructions: string;
                                output: {
                                    [key: string]: unknown;
                                } | null;
                                runId: number | null;
                                skill: string | null;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                title: string;
                            }[];
                        } | null;
                        pollUrl: string;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                            /** @description The stage decided; null for decisions recorded before it was. */
                            stage: ("plan" | "result") | null;
                        } | null;
                        reviewStage: ("plan" | "result") | null;
                        reviewUrl: string;
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def8"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        status: "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";
                        team: {
                            agent: string;
                            role: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postMissionRunsByIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The mission run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifacts: {
                            bytes: number;
                            createdAt: string;
                            createdBy: string;
                            id: number;
                            mediaType: string;
                            missionRunId: number | null;
                            name: string;
                            runId: number | null;
                            sha256: string;
                            url: string;
                        }[];
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftPlan: {
                            tasks: {
                                agent: string;
                                dependsOn: string[];
                                id: string;
                                instructions: string;
                                output: {
                                    [key: string]: unknown;
                                } | null;
                                runId: number | null;
                                skill: string | null;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                title: string;
                            }[];
                        } | null;
                        error: {
                            code: string;
                            message: string;
                            step?: string;
                            task?: string;
                        } | null;
                        goal: string;
                        id: number;
                        input: {
                            [key: string]: unknown;
                        };
                        mission: string | null;
                        plan: {
                            tasks: {
                                agent: string;
                                dependsOn: string[];
                                id: string;
                                instructions: string;
                                output: {
                                    [key: string]: unknown;
                                } | null;
                                runId: number | null;
                                skill: string | null;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed" | "cancelled";
                                title: string;
                            }[];
                        } | null;
                        pollUrl: string;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                            /** @description The stage decided; null for decisions recorded before it was. */
                            stage: ("plan" | "result") | null;
                        } | null;
                        reviewStage: ("plan" | "result") | null;
                        reviewUrl: string;
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def9"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        status: "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";
                        team: {
                            agent: string;
                            role: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMissionRunsByIdStream: {
        parameters: {
            query?: {
                lastEventId?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: planned, task_started, task_completed, awaiting_review, approved, completed, failed, cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMissions: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Missions of the org by slug (slug, name, description): `{missions, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postMissions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    description?: string;
                    goal: string;
                    /**
                     * @default {
                     *       "type": "object"
                     *     }
                     */
                    inputSchema?: {
                        [key: string]: unknown;
                    };
                    /**
                     * @default {
                     *       "maxTasks": 20,
                     *       "maxParallel": 3,
                     *       "maxToolCalls": 50
                     *     }
                     */
                    limits?: {
                        /** @default 3 */
                        maxParallel?: number;
                        /** @default 20 */
                        maxTasks?: number;
                        /** @default 50 */
                        maxToolCalls?: number;
                    };
                    name: string;
                    planner?: string;
                    /**
                     * @default result
                     * @enum {string}
                     */
                    review?: "plan" | "result" | "both";
                    reviewPolicy?: string;
                    slug: string;
                    team: {
                        agent: string;
                        /** @default  */
                        role?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Creates a mission (201 with its detail; 409 when the slug exists; 400 when a team agent is unknown or inactive). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getMissionsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One mission’s manifest: goal, inputSchema, team, planner, review, limits. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteMissionsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The mission is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchMissionsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    goal?: string;
                    inputSchema?: {
                        [key: string]: unknown;
                    };
                    limits?: {
                        /** @default 3 */
                        maxParallel?: number;
                        /** @default 20 */
                        maxTasks?: number;
                        /** @default 50 */
                        maxToolCalls?: number;
                    };
                    name?: string;
                    planner?: string;
                    /** @enum {string} */
                    review?: "plan" | "result" | "both";
                    reviewPolicy?: string | null;
                    slug?: string;
                    team?: {
                        agent: string;
                        /** @default  */
                        role?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Updates any subset of a mission’s fields (goal, team, planner, review, limits, …). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getOauthRequestsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request: {
                            client: {
                                id: string;
                                /** @enum {string} */
                                kind: "registered" | "document";
                                name: string;
                                uri: string | null;
                            };
                            /** Format: date-time */
                            expiresAt: string;
                            granted: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            id: string;
                            redirectUri: string;
                            scopes: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            /** @enum {string} */
                            status: "pending" | "allowed" | "denied" | "expired";
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postOauthRequestsByIdDecision: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    allow: boolean;
                };
            };
        };
        responses: {
            /** @description Where the browser goes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        redirectTo: string;
                        request: {
                            client: {
                                id: string;
                                /** @enum {string} */
                                kind: "registered" | "document";
                                name: string;
                                uri: string | null;
                            };
                            /** Format: date-time */
                            expiresAt: string;
                            granted: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            id: string;
                            redirectUri: string;
                            scopes: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            /** @enum {string} */
                            status: "pending" | "allowed" | "denied" | "expired";
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getObjects: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: "active" | "archived";
                type?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Instances of the org, newest first, optionally of one type and/or status: `{objects, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getObjectsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The instance. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        content: string;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        documents: {
                            /** @enum {string} */
                            direction: "outgoing" | "incoming";
                            id: number;
                            relation: string;
                            /** @enum {string} */
                            status: "active" | "archived";
                            title: string;
                            type: string;
                            url: string;
                        }[];
                        externalId: string | null;
                        id: number;
                        metadata: {
                            [key: string]: unknown;
                        };
                        runs: {
                            /** @enum {string} */
                            kind: "skill" | "workflow";
                            runId: number;
                            slug: string;
                            status: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        source: string | null;
                        /** @enum {string} */
                        status: "active" | "archived";
                        title: string;
                        type: string;
                        /** Format: date-time */
                        updatedAt: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchObjectsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content?: string;
                    metadata?: {
                        [key: string]: unknown;
                    };
                    /** @enum {string} */
                    status?: "active" | "archived";
                    title?: string;
                };
            };
        };
        responses: {
            /** @description Updates metadata (replaced whole) or status; title and content too. Answers the detail. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postObjectsBySlugInstances: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    content?: string;
                    links?: {
                        id: number;
                        /** @default related */
                        relation?: string;
                    }[];
                    /** @default {} */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    source?: string;
                    title: string;
                };
            };
        };
        responses: {
            /** @description Ingests an instance of type `slug`: 201 `{id, slug, title, createdAt}`; indexed for search at once. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getObjectsTypes: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Object types of the org by slug, with their metadata schema: `{types, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postObjectsTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    description?: string;
                    language?: string;
                    name: string;
                    /**
                     * @default {
                     *       "type": "object"
                     *     }
                     */
                    schema?: {
                        [key: string]: unknown;
                    };
                    slug: string;
                    /** @default {} */
                    sourceRelevance?: {
                        [key: string]: number;
                    };
                };
            };
        };
        responses: {
            /** @description Creates an object type (201 with its detail; 409 when the slug exists). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getObjectsTypesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One object type with its `sourceRelevance` weights. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteObjectsTypesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object type is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchObjectsTypesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    language?: string | null;
                    name?: string;
                    schema?: {
                        [key: string]: unknown;
                    };
                    slug?: string;
                    sourceRelevance?: {
                        [key: string]: number;
                    };
                };
            };
        };
        responses: {
            /** @description Extension: updates any subset of an object type’s fields. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getPeople: {
        parameters: {
            query: {
                actor: string | string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One person per distinct actor, in order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        people: {
                            actor: string;
                            /** @enum {string} */
                            kind: "token" | "user" | "system";
                            tokenName: string | null;
                            userId: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getProposals: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: "pending" | "executing" | "executed" | "failed" | "rejected" | "cancelled";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of proposals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        proposals: {
                            /** @enum {string} */
                            action: "crm.update_deal" | "crm.create_note" | "mail.send";
                            agentSlug: string | null;
                            attempts: number;
                            completedAt: string | null;
                            createdAt: string;
                            createdBy: string;
                            error: {
                                code: string;
                                message: string;
                            } | null;
                            id: number;
                            params: {
                                [key: string]: unknown;
                            };
                            proposedParams: {
                                [key: string]: unknown;
                            };
                            rationale: string;
                            result: {
                                [key: string]: unknown;
                            } | null;
                            review: {
                                at: string;
                                by: string;
                                /** @enum {string} */
                                decision: "approve" | "reject";
                                edited?: boolean;
                                note: string | null;
                                onBehalfOf: string | null;
                                reason: string | null;
                            } | null;
                            reviewItem: {
                                assignedTo: string | null;
                                id: number;
                                /** @constant */
                                kind: "action";
                                note: string | null;
                                open: boolean;
                                snoozedUntil: string | null;
                                status: string;
                                title: string;
                            } | null;
                            reviewUrl: string;
                            runId: number | null;
                            source: string;
                            /** @enum {string} */
                            status: "pending" | "executing" | "executed" | "failed" | "rejected" | "cancelled";
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getProposalsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proposal. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        action: "crm.update_deal" | "crm.create_note" | "mail.send";
                        agentSlug: string | null;
                        attempts: number;
                        completedAt: string | null;
                        createdAt: string;
                        createdBy: string;
                        error: {
                            code: string;
                            message: string;
                        } | null;
                        id: number;
                        nextAttemptAt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        proposedParams: {
                            [key: string]: unknown;
                        };
                        rationale: string;
                        result: {
                            [key: string]: unknown;
                        } | null;
                        review: {
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approve" | "reject";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewItem: {
                            assignedTo: string | null;
                            id: number;
                            /** @constant */
                            kind: "action";
                            note: string | null;
                            open: boolean;
                            snoozedUntil: string | null;
                            status: string;
                            title: string;
                        } | null;
                        reviewUrl: string;
                        runId: number | null;
                        source: string;
                        /** @enum {string} */
                        status: "pending" | "executing" | "executed" | "failed" | "rejected" | "cancelled";
                        syncedRecord: {
                            externalId: string;
                            properties: {
                                [key: string]: unknown;
                            };
                            syncedAt: string | null;
                            type: string;
                        } | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postProposalsByIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description The cancelled proposal. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        action: "crm.update_deal" | "crm.create_note" | "mail.send";
                        agentSlug: string | null;
                        attempts: number;
                        completedAt: string | null;
                        createdAt: string;
                        createdBy: string;
                        error: {
                            code: string;
                            message: string;
                        } | null;
                        id: number;
                        params: {
                            [key: string]: unknown;
                        };
                        proposedParams: {
                            [key: string]: unknown;
                        };
                        rationale: string;
                        result: {
                            [key: string]: unknown;
                        } | null;
                        review: {
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approve" | "reject";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewItem: {
                            assignedTo: string | null;
                            id: number;
                            /** @constant */
                            kind: "action";
                            note: string | null;
                            open: boolean;
                            snoozedUntil: string | null;
                            status: string;
                            title: string;
                        } | null;
                        reviewUrl: string;
                        runId: number | null;
                        source: string;
                        /** @enum {string} */
                        status: "pending" | "executing" | "executed" | "failed" | "rejected" | "cancelled";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getProposalsByIdStream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: `proposal.created`, `proposal.approved`, `proposal.rejected`, `proposal.cancelled`, `proposal.executed`, `proposal.failed`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReviewPolicies: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the policies. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        reviewPolicies: {
                            approvers?: {
                                roles?: string[];
                                users?: string[];
                            };
                            /** Format: date-time */
                            createdAt: string;
                            description: string;
                            dueIn?: string;
                            escalateTo?: {
                                roles?: string[];
                                users?: string[];
                            };
                            isDefault: boolean;
                            name: string;
                            /** @enum {string} */
                            onTimeout: "none" | "escalate" | "reject";
                            remindBefore?: string;
                            required: number;
                            selfApproval: boolean;
                            slug: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    approvers?: {
                        roles?: ("owner" | "pm" | "client_reviewer" | "specialist")[];
                        users?: string[];
                    };
                    /** @default  */
                    description?: string;
                    dueIn?: string;
                    escalateTo?: {
                        roles?: ("owner" | "pm" | "client_reviewer" | "specialist")[];
                        users?: string[];
                    };
                    name: string;
                    /**
                     * @default none
                     * @enum {string}
                     */
                    onTimeout?: "none" | "escalate" | "reject";
                    remindBefore?: string;
                    /** @default 1 */
                    required?: number;
                    /** @default true */
                    selfApproval?: boolean;
                    slug: string;
                };
            };
        };
        responses: {
            /** @description Creates a review policy (201 with its detail; 409 when the slug exists; 400 for an unknown role or user, required outside 1–5, remindBefore longer than dueIn, escalate without escalateTo; 403 without the approve capability). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReviewPoliciesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        approvers?: {
                            roles?: string[];
                            users?: string[];
                        };
                        /** Format: date-time */
                        createdAt: string;
                        description: string;
                        dueIn?: string;
                        escalateTo?: {
                            roles?: string[];
                            users?: string[];
                        };
                        isDefault: boolean;
                        name: string;
                        /** @enum {string} */
                        onTimeout: "none" | "escalate" | "reject";
                        remindBefore?: string;
                        required: number;
                        selfApproval: boolean;
                        slug: string;
                        /** Format: date-time */
                        updatedAt: string;
                        usedBy: {
                            field: string;
                            /** @enum {string} */
                            kind: "skill" | "workflow" | "mission" | "agent";
                            name: string;
                            slug: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteReviewPoliciesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The review policy is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchReviewPoliciesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    approvers?: {
                        roles?: ("owner" | "pm" | "client_reviewer" | "specialist")[];
                        users?: string[];
                    } | null;
                    description?: string;
                    dueIn?: string | null;
                    escalateTo?: {
                        roles?: ("owner" | "pm" | "client_reviewer" | "specialist")[];
                        users?: string[];
                    } | null;
                    name?: string;
                    /** @enum {string} */
                    onTimeout?: "none" | "escalate" | "reject";
                    remindBefore?: string | null;
                    required?: number;
                    selfApproval?: boolean;
                    slug?: string;
                };
            };
        };
        responses: {
            /** @description Updates any subset of a review policy’s fields (`null` removes an optional one). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReviews: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the queue. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        reviews: {
                            ageSeconds: number;
                            approvals: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                            }[];
                            assignedTo: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description While deciding: the decision waiting for effectiveAt; else null. */
                            decision: {
                                /** @enum {string} */
                                action: "approve" | "reject";
                                /** Format: date-time */
                                at: string;
                                by: string;
                                edits: {
                                    [key: string]: unknown;
                                } | null;
                                reason: string | null;
                            } | null;
                            dueAt: string | null;
                            effectiveAt: string | null;
                            id: number;
                            /** @enum {string} */
                            kind: "skill" | "workflow" | "mission" | "action";
                            note: string | null;
                            overdue: boolean;
                            pausedAt: string | null;
                            pollUrl: string;
                            required: number;
                            reviewUrl: string;
                            revision: string | null;
                            /** @description How many times the subject’s draft was sent back (request_changes) before this item. */
                            rounds: number;
                            slug: string | null;
                            snoozedUntil: string | null;
                            /** @enum {string} */
                            status: "pending" | "paused" | "awaiting_review" | "deciding" | "decided" | "cancelled";
                            summary: string | null;
                            title: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReviewsByKindById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                kind: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description {review, subject, steps?}; header ETag: "<revision>" while the item is open. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The review policy an item follows: named by its skill, gate, mission or agent, else the org’s default, else built in. */
                        policy: {
                            approvers: {
                                roles: string[];
                                users: string[];
                            } | null;
                            /** @description Whether the caller may approve it now: canDecide, not its starter under selfApproval: false, not approved by them already. */
                            canApprove: boolean;
                            /** @description Whether the caller may decide the item at all: the approve capability and an approver. */
                            canDecide: boolean;
                            dueIn: string | null;
                            escalateTo: {
                                roles: string[];
                                users: string[];
                            } | null;
                            name: string;
                            namedBy: {
                                field: string;
                                kind: string;
                                slug: string;
                            } | null;
                            /** @enum {string} */
                            onTimeout: "none" | "escalate" | "reject";
                            /** @description Why the caller may not approve (the words of the refusal a decision would get). */
                            refusal: {
                                message: string;
                                /** @enum {string} */
                                reason: "no_approve_capability" | "not_an_approver" | "self_approval" | "already_approved";
                            } | null;
                            remindBefore: string | null;
                            required: number;
                            selfApproval: boolean;
                            slug: string | null;
                            /** @enum {string} */
                            source: "named" | "default" | "built_in";
                            workspaceSha: string | null;
                        };
                        /** @description A review item: an open one carries its revision, what a reviewer saw. */
                        review: {
                            ageSeconds: number;
                            approvals: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                            }[];
                            assignedTo: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description While deciding: the decision waiting for effectiveAt; else null. */
                            decision: {
                                /** @enum {string} */
                                action: "approve" | "reject";
                                /** Format: date-time */
                                at: string;
                                by: string;
                                edits: {
                                    [key: string]: unknown;
                                } | null;
                                reason: string | null;
                            } | null;
                            dueAt: string | null;
                            effectiveAt: string | null;
                            id: number;
                            /** @enum {string} */
                            kind: "skill" | "workflow" | "mission" | "action";
                            note: string | null;
                            overdue: boolean;
                            pausedAt: string | null;
                            pollUrl: string;
                            required: number;
                            reviewUrl: string;
                            revision: string | null;
                            /** @description How many times the subject’s draft was sent back (request_changes) before this item. */
                            rounds: number;
                            slug: string | null;
                            snoozedUntil: string | null;
                            /** @enum {string} */
                            status: "pending" | "paused" | "awaiting_review" | "deciding" | "decided" | "cancelled";
                            summary: string | null;
                            title: string;
                        };
                        steps?: {
                            assignTo?: string;
                            name: string;
                            outputSchema?: {
                                [key: string]: unknown;
                            } | null;
                            skill?: string;
                            title?: string;
                            /** @enum {string} */
                            type: "skill" | "approve";
                        }[];
                        subject: unknown;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewsAssign: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    assignedTo: string | null;
                    id: number;
                    /** @enum {string} */
                    kind: "skill" | "workflow" | "mission" | "action";
                    note?: string | null;
                };
            };
        };
        responses: {
            /** @description Assign a review item to a user of the org (null: back to triage) with a note; the refreshed queue. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewsDecide: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "approve" | "reject" | "request_changes";
                    /** @description Seconds before the decision takes effect (0–30, default 0); until then POST /reviews/undo withdraws it. */
                    delaySeconds?: number;
                    edits?: {
                        [key: string]: unknown;
                    } | null;
                    id: number;
                    /** @enum {string} */
                    kind: "skill" | "workflow" | "mission" | "action";
                    reason?: string | null;
                    reviewedBy?: string | null;
                    revision?: string | null;
                };
            };
        };
        responses: {
            /** @description Approve or reject a review item (skill: approve/reject; workflow, mission: resume/cancel; action: execute/drop), or send a skill draft or a mission plan back with `request_changes` and a `reason` (the model drafts again; the new draft is a new item, at most 5 rounds); {ok, reviews, nextCursor}. 409 when it is no longer in the queue, when `revision` (or If-Match) is not current (details {reason: "stale", revision}), or after 5 rounds (details {reason: "max_rounds"}). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewsDecideBatch: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "approve" | "reject";
                    /** @description Seconds before the decision takes effect (0–30, default 0); until then POST /reviews/undo withdraws it. */
                    delaySeconds?: number;
                    items: {
                        id: number;
                        /** @enum {string} */
                        kind: "skill" | "workflow" | "mission" | "action";
                        revision?: string | null;
                    }[];
                    reason?: string | null;
                    reviewedBy?: string | null;
                };
            };
        };
        responses: {
            /** @description Approve or reject 1–100 review items at once, all or nothing: 409 details.items [{kind, id, reason: not_found|stale|not_open}] and nothing decided; else {ok, decided, reviews, nextCursor}. Each item is one rate-limit unit. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewsSnooze: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id: number;
                    /** @enum {string} */
                    kind: "skill" | "workflow" | "mission" | "action";
                    /** Format: date-time */
                    until: string;
                };
            };
        };
        responses: {
            /** @description Hide a review item from the active queue until `until` (future); the refreshed queue. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReviewsStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: `ready`, then one `review.*` event per change of an item. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postReviewsUndo: {
        parameters: {
            query?: {
                assignedTo?: string;
                cursor?: string;
                includeSnoozed?: "true" | "false";
                limit?: number;
                overdue?: "true" | "false";
                sort?: "created" | "due";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id: number;
                    /** @enum {string} */
                    kind: "skill" | "workflow" | "mission" | "action";
                };
            };
        };
        responses: {
            /** @description Withdraw a decision taken with delaySeconds before its effectiveAt: the item is open again (new revision); the refreshed queue. 409 when the item holds no such decision or effectiveAt has come. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getRuns: {
        parameters: {
            query?: {
                agentSlug?: string;
                createdAfter?: string;
                cursor?: string;
                kind?: "skill" | "workflow";
                limit?: number;
                missionRunId?: number;
                rating?: "up" | "down";
                shadow?: "true" | "false";
                skillSlug?: string;
                status?: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled" | "auto";
                workflowSlug?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        runs: {
                            agentSlug: string | null;
                            completedAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            draftOutput: unknown;
                            error: unknown;
                            feedbackAt: string | null;
                            feedbackNote: string | null;
                            forkOf: {
                                fromStep: string | null;
                                runId: number;
                            } | null;
                            forks: number[];
                            id: number;
                            input: unknown;
                            /** @enum {string} */
                            kind: "skill" | "workflow";
                            missionRunId: number | null;
                            name: string;
                            objects: {
                                id: number;
                                slug: string;
                                title: string;
                                /** @enum {string} */
                                via: "input" | "tool";
                            }[];
                            output: unknown;
                            pausedAt: string | null;
                            pollUrl: string;
                            rating: ("up" | "down") | null;
                            replayOf: number | null;
                            review: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                /** @enum {string} */
                                decision: "approved" | "rejected";
                                edited?: boolean;
                                note: string | null;
                                onBehalfOf: string | null;
                                reason: string | null;
                            } | null;
                            reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                            reviewUrl: string;
                            /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                            rounds: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                draft: {
                                    [key: string]: components["schemas"]["Def1"];
                                };
                                onBehalfOf: string | null;
                                reason: string;
                            }[];
                            shadow: boolean;
                            slug: string;
                            /** @enum {string} */
                            status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                            stepResults: {
                                [key: string]: {
                                    /** @constant */
                                    copied?: true;
                                    output: unknown;
                                };
                            } | null;
                            toolCalls: {
                                arguments: unknown;
                                completedAt: string | null;
                                error: {
                                    code: string;
                                    details?: {
                                        [key: string]: unknown;
                                    };
                                    message: string;
                                } | null;
                                id: string;
                                /** @constant */
                                replayed?: true;
                                result: unknown;
                                /** Format: date-time */
                                startedAt: string;
                                /** @enum {string} */
                                status: "running" | "ok" | "error";
                                tool: string;
                            }[];
                            traceId: string | null;
                            workspaceSha: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getRunsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentSlug: string | null;
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftOutput: unknown;
                        error: unknown;
                        feedbackAt: string | null;
                        feedbackNote: string | null;
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        } | null;
                        forks: number[];
                        id: number;
                        input: unknown;
                        /** @enum {string} */
                        kind: "skill" | "workflow";
                        missionRunId: number | null;
                        name: string;
                        objects: {
                            id: number;
                            slug: string;
                            title: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        output: unknown;
                        pausedAt: string | null;
                        pollUrl: string;
                        rating: ("up" | "down") | null;
                        replayOf: number | null;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                        reviewUrl: string;
                        /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def2"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        shadow: boolean;
                        slug: string;
                        /** @enum {string} */
                        status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                        stepResults: {
                            [key: string]: {
                                /** @constant */
                                copied?: true;
                                output: unknown;
                            };
                        } | null;
                        toolCalls: {
                            arguments: unknown;
                            completedAt: string | null;
                            error: {
                                code: string;
                                details?: {
                                    [key: string]: unknown;
                                };
                                message: string;
                            } | null;
                            id: string;
                            /** @constant */
                            replayed?: true;
                            result: unknown;
                            /** Format: date-time */
                            startedAt: string;
                            /** @enum {string} */
                            status: "running" | "ok" | "error";
                            tool: string;
                        }[];
                        traceId: string | null;
                        workspaceSha: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdApprove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Seconds before the decision takes effect (0–30, default 0); until then POST /reviews/undo withdraws it. */
                    delaySeconds?: number;
                    edits?: {
                        [key: string]: unknown;
                    } | null;
                    note?: string | null;
                    reviewedBy?: string | null;
                    revision?: string | null;
                };
            };
        };
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentSlug: string | null;
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftOutput: unknown;
                        error: unknown;
                        feedbackAt: string | null;
                        feedbackNote: string | null;
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        } | null;
                        forks: number[];
                        id: number;
                        input: unknown;
                        /** @enum {string} */
                        kind: "skill" | "workflow";
                        missionRunId: number | null;
                        name: string;
                        objects: {
                            id: number;
                            slug: string;
                            title: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        output: unknown;
                        pausedAt: string | null;
                        pollUrl: string;
                        rating: ("up" | "down") | null;
                        replayOf: number | null;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                        reviewUrl: string;
                        /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def3"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        shadow: boolean;
                        slug: string;
                        /** @enum {string} */
                        status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                        stepResults: {
                            [key: string]: {
                                /** @constant */
                                copied?: true;
                                output: unknown;
                            };
                        } | null;
                        toolCalls: {
                            arguments: unknown;
                            completedAt: string | null;
                            error: {
                                code: string;
                                details?: {
                                    [key: string]: unknown;
                                };
                                message: string;
                            } | null;
                            id: string;
                            /** @constant */
                            replayed?: true;
                            result: unknown;
                            /** Format: date-time */
                            startedAt: string;
                            /** @enum {string} */
                            status: "running" | "ok" | "error";
                            tool: string;
                        }[];
                        traceId: string | null;
                        workspaceSha: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentSlug: string | null;
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftOutput: unknown;
                        error: unknown;
                        feedbackAt: string | null;
                        feedbackNote: string | null;
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        } | null;
                        forks: number[];
                        id: number;
                        input: unknown;
                        /** @enum {string} */
                        kind: "skill" | "workflow";
                        missionRunId: number | null;
                        name: string;
                        objects: {
                            id: number;
                            slug: string;
                            title: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        output: unknown;
                        pausedAt: string | null;
                        pollUrl: string;
                        rating: ("up" | "down") | null;
                        replayOf: number | null;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                        reviewUrl: string;
                        /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def5"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        shadow: boolean;
                        slug: string;
                        /** @enum {string} */
                        status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                        stepResults: {
                            [key: string]: {
                                /** @constant */
                                copied?: true;
                                output: unknown;
                            };
                        } | null;
                        toolCalls: {
                            arguments: unknown;
                            completedAt: string | null;
                            error: {
                                code: string;
                                details?: {
                                    [key: string]: unknown;
                                };
                                message: string;
                            } | null;
                            id: string;
                            /** @constant */
                            replayed?: true;
                            result: unknown;
                            /** Format: date-time */
                            startedAt: string;
                            /** @enum {string} */
                            status: "running" | "ok" | "error";
                            tool: string;
                        }[];
                        traceId: string | null;
                        workspaceSha: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdFeedback: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string | null;
                    rating: ("up" | "down") | null;
                };
            };
        };
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentSlug: string | null;
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftOutput: unknown;
                        error: unknown;
                        feedbackAt: string | null;
                        feedbackNote: string | null;
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        } | null;
                        forks: number[];
                        id: number;
                        input: unknown;
                        /** @enum {string} */
                        kind: "skill" | "workflow";
                        missionRunId: number | null;
                        name: string;
                        objects: {
                            id: number;
                            slug: string;
                            title: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        output: unknown;
                        pausedAt: string | null;
                        pollUrl: string;
                        rating: ("up" | "down") | null;
                        replayOf: number | null;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                        reviewUrl: string;
                        /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def6"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        shadow: boolean;
                        slug: string;
                        /** @enum {string} */
                        status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                        stepResults: {
                            [key: string]: {
                                /** @constant */
                                copied?: true;
                                output: unknown;
                            };
                        } | null;
                        toolCalls: {
                            arguments: unknown;
                            completedAt: string | null;
                            error: {
                                code: string;
                                details?: {
                                    [key: string]: unknown;
                                };
                                message: string;
                            } | null;
                            id: string;
                            /** @constant */
                            replayed?: true;
                            result: unknown;
                            /** Format: date-time */
                            startedAt: string;
                            /** @enum {string} */
                            status: "running" | "ok" | "error";
                            tool: string;
                        }[];
                        traceId: string | null;
                        workspaceSha: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdFork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    fromStep?: string;
                    input?: {
                        [key: string]: unknown;
                    };
                    workspace?: "current" | string;
                };
            };
        };
        responses: {
            /** @description The fork was accepted. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        };
                        pollUrl: string;
                        runId: number;
                        status: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdReject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Seconds before the decision takes effect (0–30, default 0); until then POST /reviews/undo withdraws it. */
                    delaySeconds?: number;
                    reason?: string | null;
                    reviewedBy?: string | null;
                    revision?: string | null;
                };
            };
        };
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentSlug: string | null;
                        completedAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        draftOutput: unknown;
                        error: unknown;
                        feedbackAt: string | null;
                        feedbackNote: string | null;
                        forkOf: {
                            fromStep: string | null;
                            runId: number;
                        } | null;
                        forks: number[];
                        id: number;
                        input: unknown;
                        /** @enum {string} */
                        kind: "skill" | "workflow";
                        missionRunId: number | null;
                        name: string;
                        objects: {
                            id: number;
                            slug: string;
                            title: string;
                            /** @enum {string} */
                            via: "input" | "tool";
                        }[];
                        output: unknown;
                        pausedAt: string | null;
                        pollUrl: string;
                        rating: ("up" | "down") | null;
                        replayOf: number | null;
                        review: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            /** @enum {string} */
                            decision: "approved" | "rejected";
                            edited?: boolean;
                            note: string | null;
                            onBehalfOf: string | null;
                            reason: string | null;
                        } | null;
                        reviewState: ("auto" | "pending" | "approved" | "rejected") | null;
                        reviewUrl: string;
                        /** @description Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first. */
                        rounds: {
                            /** Format: date-time */
                            at: string;
                            by: string;
                            draft: {
                                [key: string]: components["schemas"]["Def4"];
                            };
                            onBehalfOf: string | null;
                            reason: string;
                        }[];
                        shadow: boolean;
                        slug: string;
                        /** @enum {string} */
                        status: "running" | "paused" | "pending" | "approved" | "rejected" | "completed" | "failed" | "cancelled";
                        stepResults: {
                            [key: string]: {
                                /** @constant */
                                copied?: true;
                                output: unknown;
                            };
                        } | null;
                        toolCalls: {
                            arguments: unknown;
                            completedAt: string | null;
                            error: {
                                code: string;
                                details?: {
                                    [key: string]: unknown;
                                };
                                message: string;
                            } | null;
                            id: string;
                            /** @constant */
                            replayed?: true;
                            result: unknown;
                            /** Format: date-time */
                            startedAt: string;
                            /** @enum {string} */
                            status: "running" | "ok" | "error";
                            tool: string;
                        }[];
                        traceId: string | null;
                        workspaceSha: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postRunsByIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    workspace: string;
                };
            };
        };
        responses: {
            /** @description The replay was accepted. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pollUrl: string;
                        replayOf: number;
                        runId: number;
                        status: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getRunsByIdStream: {
        parameters: {
            query?: {
                lastEventId?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: each event has an id (its sequence number, for Last-Event-ID), an event name and JSON data. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getRunsByIdTransitions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transitions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transitions: {
                            actor: string;
                            actorId: number;
                            actorKind: string;
                            at: string;
                            event: unknown;
                            from: string | null;
                            id: number;
                            to: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSearch: {
        parameters: {
            query: {
                limit?: number;
                q: string;
                types?: string | string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Hybrid search over object instances: `{results: [{id, type, title, snippet, score, url}]}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            canApprove: boolean;
                            csrfToken: string | null;
                            id: string | null;
                            org: string;
                            role: string;
                            scopes: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            tokenId: string | null;
                            userId: string;
                            /** @enum {string} */
                            via: "link" | "token" | "bearer";
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        signedOut: boolean;
                    };
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    link?: string;
                    token?: string;
                };
            };
        };
        responses: {
            /** @description The session. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            canApprove: boolean;
                            csrfToken: string | null;
                            id: string | null;
                            org: string;
                            role: string;
                            scopes: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                            tokenId: string | null;
                            userId: string;
                            /** @enum {string} */
                            via: "link" | "token" | "bearer";
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSkills: {
        parameters: {
            query?: {
                category?: string;
                cursor?: string;
                limit?: number;
                status?: "active" | "draft" | "archived";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Skills of the org by slug, optionally of one status and/or category: `{skills, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSkills: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    manifest: {
                        /** @default general */
                        category?: string;
                        /** @default  */
                        description?: string;
                        /**
                         * @default prompt
                         * @constant
                         */
                        form?: "prompt";
                        inputSchema?: {
                            [key: string]: unknown;
                        };
                        maxToolCalls?: number;
                        model?: {
                            name?: string;
                            provider: string;
                            temperature?: number;
                        };
                        name: string;
                        outputSchema?: {
                            [key: string]: unknown;
                        };
                        /** @default false */
                        requiresApproval?: boolean;
                        reviewPolicy?: string;
                        slug: string;
                        /**
                         * @default active
                         * @enum {string}
                         */
                        status?: "active" | "draft" | "archived";
                        titleTemplate?: string;
                        tools?: string[];
                    };
                    promptMd: string;
                };
            };
        };
        responses: {
            /** @description Creates a prompt skill from `{manifest, promptMd}` (201 with its detail; 409 when the slug exists). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSkillsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One skill: its manifest fields and its prompt template `promptMd`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteSkillsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchSkillsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    manifest?: {
                        category?: string;
                        description?: string;
                        /** @constant */
                        form?: "prompt";
                        inputSchema?: {
                            [key: string]: unknown;
                        } | null;
                        maxToolCalls?: number | null;
                        model?: {
                            name?: string;
                            provider: string;
                            temperature?: number;
                        } | null;
                        name?: string;
                        outputSchema?: {
                            [key: string]: unknown;
                        } | null;
                        requiresApproval?: boolean;
                        reviewPolicy?: string | null;
                        slug?: string;
                        /** @enum {string} */
                        status?: "active" | "draft" | "archived";
                        titleTemplate?: string | null;
                        tools?: string[] | null;
                    };
                    promptMd?: string;
                };
            };
        };
        responses: {
            /** @description Updates manifest fields (`manifest`, any subset) and/or the prompt (`promptMd`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSkillsBySlugEvaluations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default 20 */
                    last?: number;
                    /**
                     * @default [
                     *       "approved",
                     *       "rejected"
                     *     ]
                     */
                    statuses?: ("approved" | "rejected")[];
                    workspace: string;
                };
            };
        };
        responses: {
            /** @description The evaluation started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        evaluationId: number;
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSkillsBySlugQuality: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures per version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        versions: {
                            approvalRate: number | null;
                            approved: number;
                            changesRequested: number;
                            edited: number;
                            editRate: number | null;
                            /** Format: date-time */
                            firstRunAt: string;
                            /** Format: date-time */
                            lastRunAt: string;
                            ratingsDown: number;
                            ratingsUp: number;
                            rejected: number;
                            runs: number;
                            workspaceSha: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSkillsBySlugRuns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agentSlug?: string;
                    idempotencyKey?: string;
                    /** @default {} */
                    input?: {
                        [key: string]: unknown;
                    };
                    objects?: number[];
                };
            };
        };
        responses: {
            /** @description The run was accepted (or replayed from its idempotency key: Idempotent-Replayed: true). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pollUrl: string;
                        runId: number;
                        status: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSources: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Configured sources with their `connectionState`: `{sources, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSources: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @default {
                     *       "state": "disconnected"
                     *     }
                     */
                    connection?: {
                        /**
                         * @default disconnected
                         * @enum {string}
                         */
                        state?: "connected" | "disconnected" | "error";
                    } & {
                        [key: string]: unknown;
                    };
                    /** @default  */
                    description?: string;
                    /** @enum {string} */
                    kind: "http" | "crm" | "meetings" | "mail" | "files";
                    name: string;
                    /** @default {} */
                    retrieval?: {
                        ftsWeight?: number;
                        maxAgeDays?: number;
                        recencyHalfLifeDays?: number;
                        vectorWeight?: number;
                        weight?: number;
                    };
                    slug: string;
                    sync?: {
                        everyMinutes?: number;
                        /** @default {} */
                        objectTypes?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Extension: creates a source (201 with its detail; 409 when the slug exists). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSourcesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One source: connection, retrieval overrides and the effective retrieval settings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchSourcesBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    connection?: {
                        /**
                         * @default disconnected
                         * @enum {string}
                         */
                        state?: "connected" | "disconnected" | "error";
                    } & {
                        [key: string]: unknown;
                    };
                    description?: string;
                    /** @enum {string} */
                    kind?: "http" | "crm" | "meetings" | "mail" | "files";
                    name?: string;
                    retrieval?: {
                        ftsWeight?: number;
                        maxAgeDays?: number;
                        recencyHalfLifeDays?: number;
                        vectorWeight?: number;
                        weight?: number;
                    };
                    slug?: string;
                    sync?: {
                        everyMinutes?: number;
                        /** @default {} */
                        objectTypes?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Extension: updates any subset of a source’s fields (connection, retrieval, …). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    putSourcesBySlugCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Stores the source’s credentials sealed (crm `{accessToken}`, mail `{username, password}`, meetings `{accessToken}`), for its current connection target; the answer shows `credentialsSet` and `credentialsUpdatedAt` only. Needs the role owner or pm. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSourcesBySlugReindex: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    filter?: {
                        ids?: number[];
                        types?: string[];
                        /** Format: date-time */
                        updatedSince?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Queues a reindex of the source’s documents, optionally filtered: 202 with `reindexId`. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSourcesBySlugReindexById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: progress of one reindex of the source. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSourcesBySlugSync: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default false */
                    full?: boolean;
                };
            };
        };
        responses: {
            /** @description Starts a sync of the source into its mapped object types (202 `{syncId, status, statusUrl}`; the running sync when one runs). `full: true` reads everything, not only what changed since the last sync. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getSourcesBySlugSyncsBySyncId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
                syncId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One sync of the source: `{syncId, status, created, updated, skipped, error, …}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postSourcesBySlugTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Checks the connection now (credentials, reachability): 200 `{connectionState, connectionError}`; the state is kept on the source. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tokens. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tokens: {
                            /** Format: date-time */
                            createdAt: string;
                            expiresAt: string | null;
                            id: string;
                            lastUsedAt: string | null;
                            name: string;
                            prefix: string;
                            revokedAt: string | null;
                            role: string;
                            scope: string;
                            userId: string;
                        }[];
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    expiresAt?: string | null;
                    name: string;
                    /**
                     * @default [
                     *       "read:all",
                     *       "run:invoke"
                     *     ]
                     */
                    scope?: ("read:all" | "read:skills" | "write:resources" | "run:invoke" | "run:approve")[];
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description The token, with its plaintext (shown once). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        expiresAt: string | null;
                        id: string;
                        org: string;
                        role: string;
                        scope: string;
                        token: string;
                        userId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteTokensById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        expiresAt: string | null;
                        id: string;
                        lastUsedAt: string | null;
                        name: string;
                        prefix: string;
                        revokedAt: string | null;
                        role: string;
                        scope: string;
                        userId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getUsers: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        users: {
                            /** Format: date-time */
                            createdAt: string;
                            id: string;
                            /** @enum {string} */
                            role: "owner" | "pm" | "client_reviewer" | "specialist";
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getUsersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        id: string;
                        /** @enum {string} */
                        role: "owner" | "pm" | "client_reviewer" | "specialist";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWebhooks: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of webhooks. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nextCursor: string | null;
                        webhooks: {
                            active: boolean;
                            consecutiveFailures: number;
                            /** Format: date-time */
                            createdAt: string;
                            disabledAt: string | null;
                            disabledReason: string | null;
                            events: string[];
                            filter: {
                                skillSlug: string | null;
                                workflowSlug: string | null;
                            };
                            id: number;
                            /** Format: date-time */
                            updatedAt: string;
                            url: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    events: ("run.started" | "run.step_completed" | "run.paused_for_review" | "run.approved" | "run.rejected" | "run.completed" | "run.failed" | "object.created" | "proposal.created" | "proposal.executed" | "proposal.failed" | "mission.started" | "mission.awaiting_review" | "mission.completed" | "mission.failed" | "mission.cancelled" | "review.requested" | "review.assigned" | "review.snoozed" | "review.decided" | "review.changes_requested" | "review.due_soon" | "review.overdue" | "review.escalated")[];
                    filter?: {
                        skillSlug?: string | null;
                        workflowSlug?: string | null;
                    } | null;
                    secret: string;
                    url: string;
                };
            };
        };
        responses: {
            /** @description The webhook (without its secret). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        active: boolean;
                        consecutiveFailures: number;
                        /** Format: date-time */
                        createdAt: string;
                        disabledAt: string | null;
                        disabledReason: string | null;
                        events: string[];
                        filter: {
                            skillSlug: string | null;
                            workflowSlug: string | null;
                        };
                        id: number;
                        /** Format: date-time */
                        updatedAt: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        active: boolean;
                        consecutiveFailures: number;
                        /** Format: date-time */
                        createdAt: string;
                        disabledAt: string | null;
                        disabledReason: string | null;
                        events: string[];
                        filter: {
                            skillSlug: string | null;
                            workflowSlug: string | null;
                        };
                        id: number;
                        /** Format: date-time */
                        updatedAt: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    active?: boolean;
                    events?: ("run.started" | "run.step_completed" | "run.paused_for_review" | "run.approved" | "run.rejected" | "run.completed" | "run.failed" | "object.created" | "proposal.created" | "proposal.executed" | "proposal.failed" | "mission.started" | "mission.awaiting_review" | "mission.completed" | "mission.failed" | "mission.cancelled" | "review.requested" | "review.assigned" | "review.snoozed" | "review.decided" | "review.changes_requested" | "review.due_soon" | "review.overdue" | "review.escalated")[];
                    filter?: {
                        skillSlug?: string | null;
                        workflowSlug?: string | null;
                    } | null;
                    url?: string;
                };
            };
        };
        responses: {
            /** @description The webhook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        active: boolean;
                        consecutiveFailures: number;
                        /** Format: date-time */
                        createdAt: string;
                        disabledAt: string | null;
                        disabledReason: string | null;
                        events: string[];
                        filter: {
                            skillSlug: string | null;
                            workflowSlug: string | null;
                        };
                        id: number;
                        /** Format: date-time */
                        updatedAt: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWebhooksByIdDeliveries: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: "pending" | "delivered" | "failed";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            attempts: number;
                            /** Format: date-time */
                            createdAt: string;
                            deliveryId: string;
                            event: string;
                            lastAttemptAt: string | null;
                            nextAttemptAt: string | null;
                            replayOf: string | null;
                            responseStatus: number | null;
                            /** @enum {string} */
                            status: "pending" | "delivered" | "failed";
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWebhooksByIdDeliveriesByDeliveryId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deliveryId: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery and its attempts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        actorId: number;
                        attemptLog: {
                            /** Format: date-time */
                            at: string;
                            attempt: number;
                            bodyExcerpt: string;
                            durationMs: number;
                            error: string | null;
                            responseStatus: number | null;
                            url: string;
                        }[];
                        attempts: number;
                        /** Format: date-time */
                        createdAt: string;
                        deliveryId: string;
                        event: string;
                        lastAttemptAt: string | null;
                        lastError: string | null;
                        nextAttemptAt: string | null;
                        replayOf: string | null;
                        responseStatus: number | null;
                        /** @enum {string} */
                        status: "pending" | "delivered" | "failed";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postWebhooksByIdDeliveriesByDeliveryIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deliveryId: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveryId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postWebhooksByIdRotateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new secret, shown once. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secret: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWorkflows: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Workflows of the org by slug (slug, name, description, trigger): `{workflows, nextCursor}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postWorkflows: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    description?: string;
                    /**
                     * @default {
                     *       "type": "object"
                     *     }
                     */
                    inputSchema?: {
                        [key: string]: unknown;
                    };
                    name: string;
                    slug: string;
                    steps: ({
                        /** @default {} */
                        input?: {
                            [key: string]: unknown;
                        };
                        name: string;
                        skill: string;
                        /** @constant */
                        type: "skill";
                    } | {
                        assignTo?: string;
                        name: string;
                        reviewPolicy?: string;
                        title?: string;
                        /** @constant */
                        type: "approve";
                    })[];
                    /**
                     * @default {
                     *       "type": "manual"
                     *     }
                     */
                    trigger?: {
                        /** @constant */
                        type: "manual";
                    } | {
                        cron: string;
                        /** @constant */
                        type: "schedule";
                    } | {
                        objectType: string;
                        /** @constant */
                        type: "object.created";
                    };
                };
            };
        };
        responses: {
            /** @description Creates a workflow (201 with its detail; 409 when the slug exists). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWorkflowsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One workflow’s full manifest: trigger, inputSchema, steps. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    deleteWorkflowsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow is gone. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        slug: string;
                        workspaceSha: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    patchWorkflowsBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    inputSchema?: {
                        [key: string]: unknown;
                    };
                    name?: string;
                    slug?: string;
                    steps?: ({
                        /** @default {} */
                        input?: {
                            [key: string]: unknown;
                        };
                        name: string;
                        skill: string;
                        /** @constant */
                        type: "skill";
                    } | {
                        assignTo?: string;
                        name: string;
                        reviewPolicy?: string;
                        title?: string;
                        /** @constant */
                        type: "approve";
                    })[];
                    trigger?: {
                        /** @constant */
                        type: "manual";
                    } | {
                        cron: string;
                        /** @constant */
                        type: "schedule";
                    } | {
                        objectType: string;
                        /** @constant */
                        type: "object.created";
                    };
                };
            };
        };
        responses: {
            /** @description Updates any subset of a workflow’s fields (trigger, steps, inputSchema, name, description). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getWorkflowsBySlugQuality: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures per version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        versions: {
                            approvalRate: number | null;
                            approved: number;
                            changesRequested: number;
                            edited: number;
                            editRate: number | null;
                            /** Format: date-time */
                            firstRunAt: string;
                            /** Format: date-time */
                            lastRunAt: string;
                            ratingsDown: number;
                            ratingsUp: number;
                            rejected: number;
                            runs: number;
                            workspaceSha: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postWorkflowsBySlugRuns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agentSlug?: string;
                    idempotencyKey?: string;
                    /** @default {} */
                    input?: {
                        [key: string]: unknown;
                    };
                    objects?: number[];
                };
            };
        };
        responses: {
            /** @description The run was accepted (or replayed from its idempotency key: Idempotent-Replayed: true). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pollUrl: string;
                        runId: number;
                        status: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": unknown;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    getOauthAuthorize: {
        parameters: {
            query?: {
                /** @description A registered client id, or the https URL of a Client ID Metadata Document. */
                client_id?: string;
                /** @description PKCE: base64url SHA-256 of the verifier. */
                code_challenge?: string;
                /** @description `S256` (plain is refused). */
                code_challenge_method?: string;
                /** @description Exactly one of the client's redirect URIs. */
                redirect_uri?: string;
                /** @description `{BASE_URL}/api/mcp` (RFC 8707). */
                resource?: string;
                /** @description `code` */
                response_type?: string;
                /** @description Space-separated r3 scopes (default: the client's, else read:all run:invoke). */
                scope?: string;
                /** @description Returned unchanged with the code or the error. */
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the consent page, or to redirect_uri with `error`. */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            400: components["responses"]["Error400"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postOauthRegister: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description The client, with its client_id. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        client_id: string;
                        client_id_issued_at?: number;
                        client_name?: string;
                        client_secret?: string;
                        client_secret_expires_at?: number;
                        /** Format: uri */
                        client_uri?: string;
                        contacts?: string[];
                        grant_types?: string[];
                        issuer?: string;
                        jwks?: unknown;
                        /** Format: uri */
                        jwks_uri?: string;
                        logo_uri?: string | unknown;
                        policy_uri?: string;
                        redirect_uris: string[];
                        response_types?: string[];
                        scope?: string;
                        software_id?: string;
                        software_statement?: string;
                        software_version?: string;
                        token_endpoint_auth_method?: string;
                        tos_uri?: string | unknown;
                    };
                };
            };
            /** @description invalid_redirect_uri or invalid_client_metadata. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    postOauthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": unknown;
            };
        };
        responses: {
            /** @description The tokens. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_token: string;
                        expires_in?: number;
                        id_token?: string;
                        issuer?: string;
                        refresh_token?: string;
                        scope?: string;
                        token_type: string;
                    };
                };
            };
            /** @description An OAuth error (invalid_grant, invalid_request, …). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string;
                        error_description?: string;
                        error_uri?: string;
                    };
                };
            };
            /** @description invalid_client. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string;
                        error_description?: string;
                        error_uri?: string;
                    };
                };
            };
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        checks: {
                            bus: {
                                detail?: string;
                                ok: boolean;
                            };
                            database: {
                                detail?: string;
                                ok: boolean;
                            };
                        };
                        /** @enum {string} */
                        status: "ready" | "unavailable";
                    };
                };
            };
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
            /** @description Not ready. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        checks: {
                            bus: {
                                detail?: string;
                                ok: boolean;
                            };
                            database: {
                                detail?: string;
                                ok: boolean;
                            };
                        };
                        /** @enum {string} */
                        status: "ready" | "unavailable";
                    };
                };
            };
        };
    };
}
