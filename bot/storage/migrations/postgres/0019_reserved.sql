-- Reserved: this number belongs to another change merged beside this one; this empty script only
-- keeps the numbers in sequence on this branch and is dropped when that change is merged.
SELECT 1;
