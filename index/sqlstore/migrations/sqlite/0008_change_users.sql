-- Changes by the user who made them and by their author: an anonymous
-- reader may see a user who acted in a change it can see (api/users.go),
-- and the change lists filter by user. Import changes have neither, so
-- the indexes hold only what people did.
CREATE INDEX changes_user ON changes(user_id) WHERE user_id IS NOT NULL;
CREATE INDEX changes_author ON changes(author_id) WHERE author_id IS NOT NULL;
