-- The API connects as its own role: not superuser, no BYPASSRLS, not the schema owner.
-- Its privileges (SELECT on data tables, INSERT on audit_events) are granted by the migrations.
CREATE ROLE conv_api LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE PASSWORD 'api-password';
GRANT CONNECT ON DATABASE conversations TO conv_api;
