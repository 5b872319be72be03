"""Every subcommand of `desk`, in the order `desk --help` lists them."""

from __future__ import annotations

from desk.cli import atlas as a
from desk.cli import commands as c
from desk.cli import discovery as s
from desk.cli import duplicates as d
from desk.cli import maintenance as m
from desk.cli import organize as o
from desk.cli import trash as t
from desk.cli.commands import Command, ids_arguments, no_arguments

COMMANDS: tuple[Command, ...] = (
    Command("import", "import .txt lists (files or folders)", c.import_args, c.run_import),
    Command("search", "search the library", c.search_args, c.run_search),
    Command("list", "list every paper", c.list_args, c.run_list),
    Command("show", "show one paper", c.show_args, c.run_show),
    Command("star", "star papers", ids_arguments, c.flag_command("starred", True)),
    Command("unstar", "unstar papers", ids_arguments, c.flag_command("starred", False)),
    Command("read", "mark papers read", ids_arguments, c.flag_command("read", True)),
    Command("unread", "mark papers unread", ids_arguments, c.flag_command("read", False)),
    Command("note", "replace a paper's note", c.note_args, c.run_note),
    Command("retitle", "set the title you prefer for a paper", c.retitle_args, c.run_retitle),
    Command("related", "papers like this one", c.related_args, c.run_related),
    Command(
        "recommend", "unread papers ranked by what you starred and tagged", s.recommend_args, s.run_recommend
    ),
    Command("map", "the library as a map of named clusters (--json, --png, --svg)", a.map_args, a.run_map),
    Command("dupes", "near-duplicate candidates to review", d.dupes_args, d.run_dupes),
    Command("merge", "fold duplicates into one paper", d.merge_args, d.run_merge),
    Command("distinct", "say two papers are not duplicates", d.distinct_args, d.run_distinct),
    Command("unmerge", "undo a merge", d.unmerge_args, d.run_unmerge),
    Command("tag", "give papers a tag", o.tag_args, o.run_tag),
    Command("untag", "take a tag off papers", o.tag_args, o.run_untag),
    Command("tags", "every tag, with how many papers carry it", o.tags_args, o.run_tags),
    Command("delete", "move papers to the trash", t.delete_args, t.run_delete),
    Command("remove-list", "move an imported list to the trash", t.remove_list_args, t.run_remove_list),
    Command("trash", "what the trash holds", t.trash_args, t.run_trash),
    Command("restore-paper", "put papers back from the trash", t.restore_paper_args, t.run_restore_paper),
    Command("empty-trash", "delete what the trash holds for good", t.empty_trash_args, t.run_empty_trash),
    Command("saved", "the saved searches", o.saved_args, o.run_saved),
    Command("save-search", "save a query under a name", o.save_search_args, o.run_save_search),
    Command("undo", "take back the last change (any command's or the window's)", no_arguments, o.run_undo),
    Command("redo", "do again the change undone last", no_arguments, o.run_redo),
    Command("export", "export papers to Markdown", c.export_args, c.run_export),
    Command("stats", "counts over the library", c.stats_args, c.run_stats),
    Command("reindex", "rebuild the search index from the database", no_arguments, m.run_reindex),
    Command("check", "verify the database and that the index agrees with it", no_arguments, m.run_check),
    Command("backup", "write an online copy of the library", m.backup_args, m.run_backup),
    Command("restore", "put a backup back in place of the library", m.restore_args, m.run_restore),
    Command("salvage", "copy what can be read into a new library", m.salvage_args, m.run_salvage),
    Command("install-desktop", "add desk to the application menu", no_arguments, m.run_install_desktop),
)
