-- The version of what the storefront shows (lib/cache/content-version.ts): pages and the catalog are served from a
-- cache (lib/http/page-cache.ts) for as long as this number is unchanged, on every instance, because each instance
-- reads it per request. Written by hand: triggers bump it on every write to the tables the pages are made of, so no
-- write path can forget it. A migration that redefines one of these tables on SQLite (Prisma's "RedefineTables")
-- drops its triggers: tests/integration/page-cache.test.ts checks that every one exists after all migrations.
--
-- On PostgreSQL the bump is a deferred constraint trigger: it runs at commit, after the transaction's other row
-- locks, so two writers never wait on each other in opposite orders (no deadlock), and once per transaction.

CREATE TABLE "ContentVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "version" BIGINT NOT NULL
);
INSERT INTO "ContentVersion" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "content_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('ilm.content_version_bumped', true) IS DISTINCT FROM txid_current()::text THEN
        UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
        PERFORM set_config('ilm.content_version_bumped', txid_current()::text, true);
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER "ContentVersion_Product" AFTER INSERT OR UPDATE OR DELETE ON "Product"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "content_version_bump"();
CREATE CONSTRAINT TRIGGER "ContentVersion_Developer" AFTER INSERT OR UPDATE OR DELETE ON "Developer"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "content_version_bump"();
CREATE CONSTRAINT TRIGGER "ContentVersion_Release" AFTER INSERT OR UPDATE OR DELETE ON "Release"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "content_version_bump"();
CREATE CONSTRAINT TRIGGER "ContentVersion_Artifact" AFTER INSERT OR UPDATE OR DELETE ON "Artifact"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "content_version_bump"();
CREATE CONSTRAINT TRIGGER "ContentVersion_Review" AFTER INSERT OR UPDATE OR DELETE ON "Review"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "content_version_bump"();
